import { parseArgs } from 'node:util';
import { ApiError, type ErrorDetail } from '../shared/http/errors.js';
import { COMMANDS, type CommandResult } from './admin/commands.js';
import { configureTarget, UsageError } from './admin/target.js';

/**
 * The operator CLI: `npm run --silent admin -- <command>`. It writes through the same store
 * modules as the functions, to the local DynamoDB of `npm start` or to a deployed table.
 * Exit codes: 0 done, 1 refused or failed (the message says why), 2 wrong command line.
 */
// The SDK's notice about a future Node requirement would follow every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const GLOBAL_OPTIONS = ['json', 'table', 'region', 'endpoint', 'secret-prefix', 'help'];
const FLAGS = new Set(['json', 'help', 'mfa', 'all-permissions', 'secret-stdin']);

const commandOptions = [...new Set(Object.values(COMMANDS).flatMap((command) => command.options))];
const optionTypes = Object.fromEntries(
  [...GLOBAL_OPTIONS, ...commandOptions].map((name) => [
    name,
    { type: FLAGS.has(name) ? ('boolean' as const) : ('string' as const) },
  ]),
);

const usage = () =>
  [
    'Usage: npm run --silent admin -- <command> [options] [--json]',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((command) => `  ${command.usage}`),
    '',
    'Target: the local DynamoDB of `npm start` (IDP_DYNAMODB_PORT, default 8000; --endpoint URL),',
    '  or a deployed table: --table NAME --region REGION [--secret-prefix idp/] with AWS credentials.',
  ].join('\n');

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

/** The store names fields as the API does (`body.roles`); the operator typed `--roles`. */
const describeDetail = (detail: ErrorDetail) =>
  `  ${detail.field ? `${detail.field.replace(/^(body\.)?/, '--')}: ` : ''}${detail.message}` +
  (detail.rejectedValue === undefined ? '' : ` (${JSON.stringify(detail.rejectedValue)})`);

/** What went wrong, in words an operator can act on. */
const describeFailure = (error: unknown, target: string): string => {
  if (error instanceof ApiError) return [error.message, ...error.details.map(describeDetail)].join('\n');
  const { name, message, code } = error as Error & { code?: string };
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(String((error as Error).cause ?? message))) {
    return `Cannot reach the ${target}. Is \`npm start\` running? (A deployed table: --table and --region.)`;
  }
  if (name === 'ResourceNotFoundException') return `The ${target} has no such table: ${message}`;
  return `${name}: ${message}`;
};

const main = async (argv: string[]): Promise<number> => {
  if (argv.some((arg) => /^--(client-)?secret(=|$)/.test(arg))) {
    // Shell history and the process list would keep a secret given as an argument.
    console.error(
      'error: secrets are read from standard input (--secret-stdin), never from the command line',
    );
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs<{ options: typeof optionTypes; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: optionTypes, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [group, verb, ...extra] = positionals;
  const name = [group, verb].filter(Boolean).join(' ');
  if (values.help || name === '' || name === 'help') {
    console.log(usage());
    return 0;
  }
  const command = COMMANDS[name];
  let target = 'DynamoDB';
  try {
    if (!command) throw new UsageError(`Unknown command "${name}"`);
    // Not repeated back: a stray word may be a secret typed in the wrong place.
    if (extra.length > 0)
      throw new UsageError(`${name} takes options only, not ${extra.length} more word(s)`);
    const stray = Object.keys(values).filter(
      (option) => !GLOBAL_OPTIONS.includes(option) && !command.options.includes(option),
    );
    if (stray.length > 0) throw new UsageError(`${name} does not take --${stray.join(', --')}`);
    target = configureTarget({
      table: values.table as string | undefined,
      region: values.region as string | undefined,
      endpoint: values.endpoint as string | undefined,
      secretPrefix: values['secret-prefix'] as string | undefined,
    }).description;
    const result: CommandResult = await command.run(values, { readStdin });
    console.log(values.json ? JSON.stringify(result.json, null, 2) : result.summary);
    return 0;
  } catch (error) {
    const message = error instanceof UsageError ? error.message : describeFailure(error, target);
    if (values.json) console.error(JSON.stringify({ error: message }));
    else
      console.error(
        `error: ${message}${error instanceof UsageError ? `\n\n${command?.usage ?? usage()}` : ''}`,
      );
    return error instanceof UsageError ? 2 : 1;
  }
};

const exitCode = await main(process.argv.slice(2));
// Exit at once (the SDK keeps idle connections open), once what was printed has been written out.
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))),
);
process.exit(exitCode);
