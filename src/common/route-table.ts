import { RequestMethod, type INestApplicationContext, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { AUTH_MODE, REQUIRED_SCOPE, type AuthMode, type ScopeDeclaration } from './auth';

/** A route of the application as its controller declares it, with what it asks of the caller. */
export interface DeclaredRoute {
  /** `GET`, `POST`… */
  method: string;
  /** The Express path, `/v1/workflow-runs/:id`. */
  path: string;
  /** `ControllerClass.method`, for messages. */
  handler: string;
  /** How the route authenticates: `key` (the default) and `key-or-bootstrap` take an API key. */
  auth: AuthMode | 'key';
  /** Its scope declaration; undefined when it declares none. */
  scope: ScopeDeclaration | undefined;
}

function segments(path: unknown): string[] {
  const first: unknown = Array.isArray(path) ? path[0] : path;
  return typeof first === 'string' ? first.split('/').filter((s) => s !== '') : [];
}

/**
 * Every route of every controller the application registered (its extensions' too), read from the
 * controllers' metadata as the router and the guards read it. The route table test holds each to
 * its scope, and the start-up warns about a route that takes a key without declaring one.
 */
export function declaredRoutes(app: INestApplicationContext): DeclaredRoute[] {
  const reflector = app.get(Reflector);
  const scanner = new MetadataScanner();
  const routes: DeclaredRoute[] = [];
  const seen = new Set<Type<unknown>>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller || seen.has(controller)) continue;
      seen.add(controller);
      const base = segments(Reflect.getMetadata(PATH_METADATA, controller));
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(proto)) {
        const handler = proto[name];
        if (typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const path: unknown = Reflect.getMetadata(PATH_METADATA, handler);
        if (method === undefined || path === undefined) continue;
        const targets = [handler, controller];
        routes.push({
          method: RequestMethod[method],
          path: `/${[...base, ...segments(path)].join('/')}`,
          handler: `${controller.name}.${name}`,
          auth: reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE, targets) ?? 'key',
          scope: reflector.getAllAndOverride<ScopeDeclaration | undefined>(REQUIRED_SCOPE, targets),
        });
      }
    }
  }
  return routes;
}

/** Whether the route takes an API key (and so must declare a scope, or NoScope()). */
export function takesKey(route: DeclaredRoute): boolean {
  return route.auth === 'key' || route.auth === 'key-or-bootstrap';
}
