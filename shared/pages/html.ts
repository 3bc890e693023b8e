import { createHash } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * The hosted pages' HTML: server-rendered, one stylesheet, no JavaScript but the passkey script on
 * the pages that offer passkeys (and they work without it). Written by hand (a
 * template engine would be the largest thing in the function for a handful of small pages);
 * every value goes through `escapeHtml`.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

/** Marks markup as already safe, so `html` does not escape it again. */
export class Markup {
  constructor(readonly value: string) {}
}

/** A tagged template that escapes every interpolated value unless it is `Markup`. */
export const html = (strings: TemplateStringsArray, ...values: unknown[]): Markup =>
  new Markup(
    strings.reduce((out, string, index) => {
      if (index === 0) return string;
      const value = values[index - 1];
      const text =
        value instanceof Markup
          ? value.value
          : Array.isArray(value)
            ? value.map((item) => (item instanceof Markup ? item.value : escapeHtml(String(item)))).join('')
            : value === undefined || value === false || value === null
              ? ''
              : escapeHtml(String(value));
      return out + text + string;
    }, ''),
  );

const STYLESHEET = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:8vh auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin:0 0 .25rem}p.org{margin:0 0 1.5rem;color:#5b6475}
label{display:block;font-weight:600;margin:1rem 0 .3rem}input{width:100%;padding:.6rem .7rem;font:inherit;border:1px solid #b9c0cc;border-radius:8px}
input:focus{outline:2px solid #2f5bea;outline-offset:1px}button{margin-top:1.5rem;width:100%;padding:.7rem;font:inherit;font-weight:600;color:#fff;background:#2f5bea;border:0;border-radius:8px;cursor:pointer}
.error{padding:.7rem .9rem;border-radius:8px;background:#fdecec;color:#8a1c1c;margin:0 0 1rem}.note{color:#5b6475;font-size:.9rem}a{color:#2f5bea}
.done{padding:.7rem .9rem;border-radius:8px;background:#e8f5ec;color:#1d5c33;margin:0 0 1rem}.links{margin-top:1.25rem;text-align:center}
button.secondary{background:#fff;color:#2f5bea;border:1px solid #b9c0cc;margin-top:.75rem}
[hidden]{display:none!important}.passkeys{list-style:none;padding:0}.passkeys li{border-top:1px solid #e1e4ea;padding:.75rem 0}
.qr{display:block;width:200px;height:200px;margin:1rem auto}code,.codes{font-family:ui-monospace,Menlo,Consolas,monospace}
code{display:block;word-break:break-all;background:#f4f5f7;padding:.5rem;border-radius:6px;font-size:.85rem}
.codes{display:grid;grid-template-columns:1fr 1fr;gap:.4rem 1rem;padding:1rem;background:#f4f5f7;border-radius:8px;list-style:none;margin:1rem 0}
`.trim();

const STYLE_HASH = createHash('sha256').update(STYLESHEET).digest('base64');

/** OWASP's headers for pages that take credentials: no script (but the passkey script, below), no framing, no referrer. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src data:; base-uri 'none'; frame-ancestors 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  pragma: 'no-cache',
};

/**
 * A page with passkey forms loads the one script the hosted pages have, from their own origin
 * (no inline script, no eval), and may call the origin's passkey options endpoint.
 */
const SCRIPT_POLICY = "; script-src 'self'; connect-src 'self'";
export const PASSKEY_SCRIPT_PATH = '/signin/passkeys.js';

export const page = (
  status: number,
  title: string,
  body: Markup,
  options: { cookies?: string[]; headers?: Record<string, string>; passkeyScript?: boolean } = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: {
    ...PAGE_HEADERS,
    ...(options.passkeyScript
      ? { 'content-security-policy': PAGE_HEADERS['content-security-policy'] + SCRIPT_POLICY }
      : {}),
    ...options.headers,
  },
  ...(options.cookies?.length ? { cookies: options.cookies } : {}),
  body: html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${new Markup(STYLESHEET)}</style>${options.passkeyScript ? html`<script type="module" src="${PASSKEY_SCRIPT_PATH}"></script>` : ''}</head>
<body><main>${body}</main></body></html>`.value,
});

/** A 303 to `location` (a form's answer), with cookies and without a referrer for what follows. */
export const seeOther = (location: string, cookies: string[] = []): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 303,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  ...(cookies.length ? { cookies } : {}),
  body: '',
});
