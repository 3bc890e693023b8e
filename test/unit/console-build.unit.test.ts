import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { buildConsole } from '../../shared/console/console-build.js';

/**
 * The console's initial load (its page's one script and one stylesheet) stays within the issue's
 * 300 KB gzipped, and is printed; nothing of Node or of the server side slips into it.
 */
it('builds one script and one stylesheet, at most 300 KB gzipped together, free of server code', async () => {
  const files = await buildConsole();
  expect(Object.keys(files).map((name) => name.replace(/-[A-Z0-9]+\./, '-HASH.'))).toEqual([
    'assets/app-HASH.js',
    'assets/app-HASH.css',
  ]);
  const gzipped = Object.values(files).reduce((total, file) => total + gzipSync(file.body).length, 0);
  console.log(`console initial load: ${(gzipped / 1024).toFixed(1)} KB gzipped`);
  expect(gzipped).toBeLessThanOrEqual(300 * 1024);
  const script = Object.values(files).find((file) => file.type.startsWith('text/javascript'))?.body ?? '';
  for (const serverOnly of ['node:', 'DynamoDB', 'process.env', 'eval(', 'new Function('])
    expect(script, serverOnly).not.toContain(serverOnly);
});
