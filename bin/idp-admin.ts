import { runCli } from './admin/cli.js';
import { UsageError } from './admin/target.js';

/**
 * The operator CLI: `npm run --silent admin -- <command>`. It writes through the same store
 * modules as the functions, to the local DynamoDB of `npm start` or to a deployed table.
 * Exit codes: 0 done, 1 refused or failed (the message says why), 2 wrong command line.
 * The commands are in bin/admin/ (table: commands.ts, command line: cli.ts).
 */
// The SDK's notice about a future Node requirement would follow every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const readStdin = async (): Promise<string> => {
  // Waiting for a terminal's end of input would look like a hang.
  if (process.stdin.isTTY) {
    throw new UsageError(
      '--secret-stdin reads a pipe, e.g. printf %s "$SECRET" | npm run --silent admin -- …',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const exitCode = await runCli(process.argv.slice(2), {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  readStdin,
});
// Exit at once (the SDK keeps idle connections open), once what was printed has been written out.
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))),
);
process.exit(exitCode);
