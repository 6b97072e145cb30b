// `node --import ./no-keytar.mjs …`: the keytar module cannot be resolved, as on a machine where its optional
// install failed (no libsecret headers). Stands in for uninstalling libsecret, which tests cannot do.
import { register } from 'node:module';

const hook = `export async function resolve(specifier, context, next) {
  if (specifier === 'keytar') throw Object.assign(new Error("Cannot find module 'keytar'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
