import { createRequire } from 'node:module';
import path from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';

/**
 * Extensions: Nest modules named in EXTENSION_MODULES, loaded at boot and imported beside the service's
 * own modules, so that a team adds task handlers without forking the service (README "Extending the
 * service").
 *
 * The convention: an extension's default export is its module, a class decorated with @Module or a
 * dynamic module. In CommonJS without a `default`, `module.exports` itself is the default export, as
 * for Node's `import`. Several modules are one module importing the others.
 */

/** An extension that cannot be loaded; the message names it and says why, on one line. */
export class ExtensionError extends Error {}

export type ExtensionModule = Type | DynamicModule;

export interface LoadedExtension {
  /** As written in EXTENSION_MODULES. */
  name: string;
  /** The file it resolved to. */
  file: string;
  module: ExtensionModule;
}

/**
 * Resolves and loads each extension, in order, the way `require` would from a file in `cwd`: a path
 * (starting with ./, ../ or /) relative to it, a package name from its node_modules and those above.
 */
export function loadExtensions(
  names: readonly string[] = [],
  cwd = process.cwd(),
): LoadedExtension[] {
  const load = createRequire(path.join(cwd, path.sep));
  return names.map((name) => {
    const setting = `extension "${name}" (EXTENSION_MODULES)`;
    let file: string;
    try {
      file = load.resolve(name);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'MODULE_NOT_FOUND') {
        throw new ExtensionError(`${setting} cannot be resolved: ${firstLine(err)}`);
      }
      throw new ExtensionError(
        isPath(name)
          ? `${setting} cannot be found: no module at ${path.resolve(cwd, name)} (a path is ` +
              'relative to the working directory).'
          : `${setting} cannot be found: no package "${name}" in the node_modules of ${cwd} or ` +
              'above. Install it, or give a path starting with ./, ../ or /.',
      );
    }
    let exported: unknown;
    try {
      exported = load(file);
    } catch (err) {
      throw new ExtensionError(`${setting} threw while loading: ${firstLine(err)}`);
    }
    const module = extensionModule(exported);
    if (!module) {
      throw new ExtensionError(
        `${setting} exports no Nest module: its default export must be a class decorated with ` +
          '@Module({...}) or a dynamic module.',
      );
    }
    return { name, file, module };
  });
}

/** The module an extension's exports hold by the convention above, if any. */
export function extensionModule(exported: unknown): ExtensionModule | undefined {
  const candidate =
    exported !== null && typeof exported === 'object' && 'default' in exported
      ? exported.default
      : exported;
  if (typeof candidate === 'function') {
    // @Module({...}) stores each of its keys as metadata on the class; a class without any is not
    // a module (a handler exported by mistake, say), and importing it would quietly add nothing.
    const keys = Object.values(MODULE_METADATA);
    return keys.some((key) => Reflect.getMetadata(key, candidate) !== undefined)
      ? (candidate as Type)
      : undefined;
  }
  const isDynamic =
    candidate !== null &&
    typeof candidate === 'object' &&
    typeof (candidate as Partial<DynamicModule>).module === 'function';
  return isDynamic ? (candidate as DynamicModule) : undefined;
}

/** How an extension is named in the start-up log: its setting, and the module's class. */
export function describeExtension({ name, module }: LoadedExtension): string {
  return `${name} (${'module' in module ? module.module.name : module.name})`;
}

/** What `require` takes for a path rather than a package name. */
function isPath(name: string): boolean {
  return /^\.\.?(\/|$)/.test(name) || path.isAbsolute(name);
}

/** The first line of an error's message: one line for the operator, no stack. */
function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}
