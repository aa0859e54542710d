// Node resolve hook for the benchmark only: tfjs-core's ES module files import each other without
// file extensions (written for bundlers); add ".js" for those, and only those, imports.
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    const ours = specifier.startsWith('.') && context.parentURL?.includes('/@tensorflow/tfjs-core/');
    if (!ours || !['ERR_MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT'].includes(e.code)) throw e;
    try {
      return await next(`${specifier}.js`, context);   // ./gradients -> ./gradients.js (a file beside a folder)
    } catch {
      return next(`${specifier}/index.js`, context);
    }
  }
}
