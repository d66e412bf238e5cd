# syntax=docker/dockerfile:1

# --- build: every dependency, then compile the service, its migrations and the console to dist/ ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json tsconfig.migrations.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
COPY client ./client
COPY console ./console
RUN npm run build:service && npm run build:console

# --- production dependencies only (no compiler, linters or test tools) ----------------------------
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# --- runtime ---------------------------------------------------------------------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
# Code and dependencies stay owned by root, read-only for the service user.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Only the embedded PostgreSQL (DATABASE_URL unset) writes, under ./.data; mount a volume there to
# keep its data, or better, set DATABASE_URL.
RUN mkdir -p /app/.data && chown node:node /app/.data
# An extension installed as a package resolves its peer dependency `workflow-orchestrator` through
# node_modules to this service itself, the copy that runs (README "An image with extensions").
RUN ln -s /app /app/node_modules/workflow-orchestrator
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: it drains HTTP, closes the app, stops an embedded database.
CMD ["node", "dist/main.js"]
