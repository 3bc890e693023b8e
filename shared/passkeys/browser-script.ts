/**
 * The hosted pages' script. A deployed function carries it as a string its bundler put in
 * (lib/bundling.ts defines `globalThis.IDP_PASSKEY_SCRIPT`, and `IDP_LAMBDA_BUNDLE`, which drops
 * the local branch and esbuild with it); a local run bundles it on first request.
 */
let script: Promise<string> | undefined;

export const passkeyScript = (): Promise<string> => {
  if ((globalThis as { IDP_LAMBDA_BUNDLE?: true }).IDP_LAMBDA_BUNDLE) {
    script ??= Promise.resolve((globalThis as { IDP_PASSKEY_SCRIPT?: string }).IDP_PASSKEY_SCRIPT ?? '');
  } else {
    script ??= import('./browser-build.js').then(({ buildPasskeyScript }) => buildPasskeyScript());
  }
  return script;
};
