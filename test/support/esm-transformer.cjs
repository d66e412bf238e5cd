// NestJS 12 (and a few of its dependencies) ship as ES modules only. Node 20 loads them through
// require(esm), but Jest's module system on Node 20 cannot, so Jest compiles those files to CommonJS
// with TypeScript's transpiler. Files that are already CommonJS pass through untouched.
const crypto = require('node:crypto');
const ts = require('typescript');

const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s)/m;

module.exports = {
  getCacheKey(source, filename) {
    return crypto
      .createHash('sha1')
      .update(ts.version)
      .update('\0esm-transformer-v2\0')
      .update(filename)
      .update('\0')
      .update(source)
      .digest('hex');
  },
  process(source, filename) {
    if (!ESM_SYNTAX.test(source) && !source.includes('import.meta')) return { code: source };
    const code = source
      // `const require = createRequire(import.meta.url)` would clash with CommonJS's own `require`,
      // which resolves the same way; keep the call, drop the clashing name.
      .replace(/\b(const|let|var)\s+require\s*=/g, '$1 __esmRequire =')
      .replace(/\bimport\.meta\.url\b/g, 'require("node:url").pathToFileURL(__filename).href')
      .replace(/\bimport\.meta\.dirname\b/g, '__dirname')
      .replace(/\bimport\.meta\.filename\b/g, '__filename');
    const out = ts.transpileModule(code, {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        allowJs: true,
        esModuleInterop: true,
        sourceMap: false,
        inlineSourceMap: false,
      },
    });
    return { code: out.outputText };
  },
};
