import { defineConfig } from 'vite';

/**
 * The console: a static single-page app that the service serves at /console (src/console). Built into
 * dist/console-app by `npm run build`; `npm run console:dev` serves it with hot reload and forwards the
 * API to a service on :3000 (or CONSOLE_DEV_API), so the cookie stays same-origin in development too.
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console-app',
    emptyOutDir: true,
    sourcemap: true,
    // The whole console is one small app (Preact + Chart.js), loaded once per sign-in.
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: { '/v1': process.env.CONSOLE_DEV_API ?? 'http://127.0.0.1:3000' },
  },
});
