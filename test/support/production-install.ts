import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  mkdir,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RuntimeRecipe } from './image-recipe';

/** The longest the production install may take (the npm cache is warm after the repository's `npm ci`). */
const INSTALL_TIMEOUT_MS = 180_000;

export interface PackageManifest {
  name: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface LockEntry {
  dev?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface PackageLock {
  packages: Record<string, LockEntry>;
}

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * The user to run the service as: as root, the image's user when this machine has one of that name
 * (other than root), else `nobody`; not root, undefined (the test runs it as itself, already
 * unprivileged).
 */
export function unprivilegedUser(imageUser: string): ServiceUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const users = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 4)
    .map(([name, , uid, gid]) => ({ name, uid: Number(uid), gid: Number(gid) }));
  const user =
    users.find((u) => u.name === imageUser && u.uid !== 0) ??
    users.find((u) => u.name === 'nobody');
  if (!user) throw new Error(`neither "${imageUser}" nor "nobody" is in /etc/passwd`);
  return user;
}

/**
 * Builds in `dir` what the Dockerfile builds in its runtime image, from this checkout (`root`, built):
 * the install stage's inputs and its `npm ci` (plus flags that only keep it offline and quiet), the
 * runtime stage's copies and its `RUN` commands, with the image's working directory mapped to `dir`
 * and its user to `user`. `edit` may change the copied package.json and lock before the install.
 */
export async function installForProduction(
  recipe: RuntimeRecipe,
  options: {
    root: string;
    dir: string;
    user?: ServiceUser;
    edit?: (manifest: PackageManifest, lock: PackageLock) => void;
  },
): Promise<void> {
  const { root, dir } = options;
  /** A path of the image (absolute under its WORKDIR, or relative to it) as a path under `base`. */
  const local = (imagePath: string, base: string): string => {
    if (!path.posix.isAbsolute(imagePath)) return path.join(base, imagePath);
    const rel = path.posix.relative(recipe.workdir, imagePath);
    if (rel.startsWith('..')) throw new Error(`${imagePath} is outside ${recipe.workdir}`);
    return path.join(base, rel);
  };

  for (const input of recipe.install.inputs)
    await cp(path.join(root, input), path.join(dir, input));
  if (options.edit) {
    const manifestPath = path.join(dir, 'package.json');
    const lockPath = path.join(dir, 'package-lock.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as PackageManifest;
    const lock = JSON.parse(await readFile(lockPath, 'utf8')) as PackageLock;
    options.edit(manifest, lock);
    await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
    await writeFile(lockPath, JSON.stringify(lock, null, 2));
  }
  const [command, ...args] = recipe.install.command;
  await promisify(execFile)(command, [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`${recipe.install.command.join(' ')} failed: ${err.message}\n${err.stderr}`);
  });

  const runtimeFiles = new Set<string>();
  for (const copy of recipe.copies) {
    const dest = local(copy.dest, dir);
    for (const source of copy.sources) {
      // What the install stage made, and its inputs (edited or not), are in `dir` already.
      const inDir =
        copy.from === recipe.install.stage ||
        (copy.from === null && recipe.install.inputs.includes(source));
      const from = inDir
        ? local(source, dir)
        : copy.from === null
          ? path.join(root, source)
          : local(source, root);
      const to = copy.dest.endsWith('/') ? path.join(dest, path.basename(source)) : dest;
      runtimeFiles.add(path.relative(dir, to));
      if (from !== to) await cp(from, to, { recursive: true });
    }
  }
  // The runtime image holds none of the install inputs that it does not copy itself (the lock).
  for (const input of recipe.install.inputs) {
    if (!runtimeFiles.has(input)) await rm(path.join(dir, input));
  }

  for (const [program, ...words] of recipe.commands) {
    if (program === 'mkdir' && words[0] === '-p' && words.length === 2) {
      await mkdir(local(words[1], dir), { recursive: true });
    } else if (program === 'chown' && words.length === 2) {
      if (words[0] !== `${recipe.user}:${recipe.user}`) {
        throw new Error(`chown ${words[0]}: only the image's own user is reproduced`);
      }
      if (options.user) await chown(local(words[1], dir), options.user.uid, options.user.gid);
    } else if (program === 'ln' && words[0] === '-s' && words.length === 3) {
      await symlink(local(words[1], dir), local(words[2], dir));
    } else {
      throw new Error(
        `the runtime stage runs "${[program, ...words].join(' ')}", which installForProduction does not reproduce: teach it`,
      );
    }
  }
  // mkdtemp makes 0700 directories: the service user must be able to read its code, like in the image.
  await chmod(dir, 0o755);
}

/** Every JavaScript file under `dir`, relative to it. */
async function javaScriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** `@scope/name/deep/path` is `@scope/name`; `name/deep` is `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The packages that the compiled code in `distDir` requires (`require("x")`, `require.resolve("x")`, as
 * TypeScript emits them for CommonJS) but that `manifest` does not list in `dependencies` or
 * `optionalDependencies`, so that `npm ci --omit=dev` leaves them out. Requires whose name is computed
 * at run time cannot be seen here; the production install test catches those.
 */
export async function undeclaredRuntimePackages(
  distDir: string,
  manifest: PackageManifest,
): Promise<Array<{ name: string; files: string[] }>> {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const missing = new Map<string, string[]>();
  const requireCall = /\brequire(?:\.resolve)?\(\s*(['"])([^'"]+)\1\s*\)/g;
  for (const file of await javaScriptFiles(distDir)) {
    const code = await readFile(path.join(distDir, file), 'utf8');
    for (const [, , specifier] of code.matchAll(requireCall)) {
      if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) continue;
      const name = packageOf(specifier);
      if (declared.has(name)) continue;
      const files = missing.get(name) ?? [];
      if (!files.includes(file)) files.push(file);
      missing.set(name, files);
    }
  }
  return [...missing]
    .map(([name, files]) => ({ name, files }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Moves `name` from dependencies to devDependencies in a package.json and its lock, as a developer
 * who added it with `npm install -D` would have it. Only for a package that nothing else installs
 * (no dependencies of its own, no dependents), so that the edited lock stays one npm accepts.
 */
export function moveToDevDependencies(
  manifest: PackageManifest,
  lock: PackageLock,
  name: string,
): void {
  const entry = lock.packages[`node_modules/${name}`];
  const range = manifest.dependencies?.[name];
  if (!entry || !range) throw new Error(`${name} is not a locked production dependency`);
  const dependents = Object.entries(lock.packages)
    .filter(([key]) => key !== '')
    .filter(([, e]) =>
      [e.dependencies, e.optionalDependencies, e.peerDependencies].some((deps) => deps?.[name]),
    )
    .map(([key]) => key);
  if (entry.dependencies || dependents.length > 0) {
    throw new Error(`${name} is not a leaf of the tree (dependents: ${dependents.join(', ')})`);
  }
  for (const target of [manifest, lock.packages['']]) {
    delete target.dependencies?.[name];
    target.devDependencies = { ...target.devDependencies, [name]: range };
  }
  entry.dev = true;
}
