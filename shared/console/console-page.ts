import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { escapeHtml } from '../pages/html.js';
import { consoleFiles } from './console-files.js';

/**
 * The console's page and files. The page is the same for every organization (the script reads
 * the organization from the address); it loads one script and one stylesheet of this origin and
 * nothing else: no inline script or style, no eval, nothing from elsewhere.
 */

const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'content-security-policy': CONSOLE_POLICY,
  // Alone in its browsing context group: a page of another origin that opened the console, or
  // that it opened, has no handle on it (OWASP's XS-Leaks and tabnabbing advice). Not on the
  // sign-in pages, which applications may open in a pop-up whose opener must stay.
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** `GET /console/{organizationId}`: the single page; the hash names the screen. */
export const showConsole = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
  const names = Object.keys(await consoleFiles());
  const script = names.find((name) => name.endsWith('.js'));
  const stylesheet = names.find((name) => name.endsWith('.css'));
  const organization = event.pathParameters?.organizationId ?? '';
  return {
    statusCode: 200,
    headers: { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>IDP console – ${escapeHtml(organization)}</title>
<link rel="stylesheet" href="/console/${stylesheet}"><script type="module" src="/console/${script}"></script></head>
<body><div id="console"><noscript>The console needs JavaScript.</noscript></div></body></html>`,
  };
};

/** `GET /console/assets/{file}`: named by content hash, so kept by browsers for a year. */
export const consoleAsset = async (
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> => {
  const file = (await consoleFiles())[`assets/${event.pathParameters?.file ?? ''}`];
  if (!file)
    return {
      statusCode: 404,
      headers: { ...HEADERS, 'content-type': 'text/plain' },
      body: 'No such console file',
    };
  return {
    statusCode: 200,
    headers: {
      ...HEADERS,
      'content-type': file.type,
      'cache-control': 'public, max-age=31536000, immutable',
    },
    body: file.body,
  };
};
