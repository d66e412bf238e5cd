import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

type Constructor = new (...args: never[]) => object;

/**
 * A constructor that builds `base`'s objects with `prototype` as their prototype from the start, by
 * running `base` on an object `new` made with that prototype. `base` must be a function constructor,
 * as node:http's are (a class cannot be called on an existing object).
 *
 * `Reflect.construct(base, args, derived)` does the same for classes too, but V8 makes a map for
 * every object it builds that way when `derived` is not a class: measured on the bench machine,
 * 35 us per response and 22 us per request, against 1.3 us and 0.13 us this way (60 and 70 ns with
 * node:http's own constructors), which was 14% of the service's CPU under `GET` one run.
 */
function withPrototype<T extends Constructor>(base: T, prototype: object): T {
  const construct = base as unknown as (...args: unknown[]) => void;
  function derived(this: object, ...args: unknown[]): void {
    construct.apply(this, args);
  }
  derived.prototype = prototype;
  return derived as unknown as T;
}

/** Whether `f` is written as a class, which cannot run on an object made elsewhere. */
function isClass(f: Constructor): boolean {
  return Function.prototype.toString.call(f).startsWith('class');
}

/**
 * Nest's Express adapter, with an HTTP server that creates each request and response with the Express
 * app's own prototypes (`app.request`, `app.response`), so that Express finds them already in place.
 *
 * Express gives every request its app's methods with `Object.setPrototypeOf(req, app.request)` (and the
 * same for the response). On V8, changing the prototype of a freshly made object keeps it and what it
 * references alive through the next scavenges: measured on the bench machine with a bare Express 5 app
 * at 1,300 requests/s, about 4 MB survived each young-generation collection and each took 10-13 ms,
 * the whole of that app's tail (p99 10-15 ms in an open loop, against 4 ms for `node:http` alone).
 * Built with the right prototype, the request dies young: scavenges of under 1 ms, p99 4 ms. Express's
 * own call then changes nothing (setting an object's prototype to the one it has is a no-op), and a
 * request through a mounted sub-app still gets that app's prototypes as before.
 */
export class PrebuiltPrototypesAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (
      options.httpsOptions ||
      options.forceCloseConnections ||
      options.return503OnClosing ||
      isClass(IncomingMessage) ||
      isClass(ServerResponse)
    ) {
      // Options the service does not use, or a Node.js whose request and response are classes:
      // Nest's own server, with its handling of them.
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    this.httpServer = createServer(
      {
        IncomingMessage: withPrototype<typeof IncomingMessage>(IncomingMessage, app.request),
        ServerResponse: withPrototype<typeof ServerResponse>(ServerResponse, app.response),
      },
      app,
    );
  }
}
