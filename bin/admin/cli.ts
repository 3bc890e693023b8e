import { parseArgs } from 'node:util';
import { withAuditScope } from '../../shared/audit/scope.js';
import { DomainError, type FieldProblem, NotFound } from '../../shared/domain/errors.js';
import { COMMANDS, type Command, type CommandResult } from './commands.js';
import { operatorActor } from './operator.js';
import { CredentialsMissing, configureTarget, requireOperatorCredentials, UsageError } from './target.js';
import { terminalSafe } from './terminal-text.js';

/** Where the CLI writes and what it reads; the process's own streams, or a test's. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
}

const GLOBAL_OPTIONS = ['json', 'table', 'region', 'endpoint', 'secret-prefix', 'help'];
const FLAGS = new Set([
  'json',
  'help',
  'mfa',
  'no-mfa',
  'all-permissions',
  'secret-stdin',
  'jit',
  'no-jit',
  'trust-mfa',
  'no-trust-mfa',
  'require-par',
  'no-require-par',
]);

const commandOptions = [...new Set(Object.values(COMMANDS).flatMap((command) => command.options))];
const optionTypes = Object.fromEntries(
  [...GLOBAL_OPTIONS, ...commandOptions].map((name) => [
    name,
    { type: FLAGS.has(name) ? ('boolean' as const) : ('string' as const) },
  ]),
);

const INVOCATION = 'npm run --silent admin --';

const TARGET_HELP = [
  'Target: the local DynamoDB of `npm start` (IDP_DYNAMODB_PORT, default 8000; --endpoint URL),',
  '  or a deployed table: --table NAME --region REGION [--secret-prefix idp/] with AWS credentials.',
];

/** The first word of each command (`org`, `client`, …), in the order `help` lists them. */
export const COMMAND_GROUPS = [...new Set(Object.keys(COMMANDS).map((name) => name.split(' ')[0] as string))];

const commandsOf = (group: string) =>
  Object.entries(COMMANDS).filter(([name]) => name.split(' ')[0] === group);

const COMMAND_WORDS = Object.keys(COMMANDS).map((name) => name.split(' '));

/** Whether `words` begin the name of some command (`scim`, `scim token`), or are one. */
const beginsCommand = (words: readonly string[]) =>
  COMMAND_WORDS.some(
    (name) => name.length >= words.length && words.every((word, index) => name[index] === word),
  );

/**
 * What the words of a command line name: the command they start with and the words after its name;
 * otherwise the words that begin some command's name and the one word after them (a longer
 * reading could repeat a stray word, which may be a secret typed in the wrong place).
 */
const readCommandLine = (words: readonly string[]) => {
  let known = 0;
  while (known < words.length && beginsCommand(words.slice(0, known + 1))) known++;
  for (let length = known; length > 0; length--) {
    const name = words.slice(0, length).join(' ');
    if (COMMANDS[name]) return { name, command: COMMANDS[name], rest: words.slice(length) };
  }
  return {
    name: words.slice(0, known + 1).join(' '),
    command: undefined,
    rest: [],
    // Words that begin commands and nothing more: `org`, `scim token`.
    incomplete: known > 0 && known === words.length,
  };
};

/** Every command: `--help`, `help` or no command at all. */
export const usage = (): string =>
  [
    `Usage: ${INVOCATION} <command> [options] [--json]`,
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((command) => `  ${command.usage}`),
    '',
    ...TARGET_HELP,
    `Add --help to a command (or give only its first word, e.g. \`org\`) for its usage alone.`,
  ].join('\n');

/** The commands of one group, e.g. `org`. */
export const groupUsage = (group: string): string =>
  [
    `Usage: ${INVOCATION} ${group} <command> [options] [--json]`,
    '',
    `${group} commands:`,
    ...commandsOf(group).map(([, command]) => `  ${command.usage}`),
  ].join('\n');

const usageLine = (command: Command) => `Usage: ${INVOCATION} ${command.usage} [--json]`;

/** One command's usage, where to run it and its notes: `org create --help`. */
export const commandHelp = (name: string): string => {
  const command = COMMANDS[name];
  if (!command) throw new Error(`No command ${name}`);
  return [usageLine(command), '', ...TARGET_HELP, ...(command.notes ? ['', command.notes] : [])].join('\n');
};

/** The store names fields as the input names them (`roles`); the operator typed `--roles`. */
const describeField = (problem: FieldProblem) =>
  `  --${problem.field}: ${problem.message}` +
  (problem.rejectedValue === undefined ? '' : ` (${JSON.stringify(problem.rejectedValue)})`);

/** The refusals of the store, one mapping for every command: exit code 1 and what was refused. */
const describeRefusal = (error: DomainError): string => {
  const headline =
    error instanceof NotFound && error.id ? `${error.entity} ${error.id} not found` : error.message;
  return [headline, ...error.fields.map(describeField)].join('\n');
};

/** What went wrong, in words an operator can act on. */
const describeFailure = (error: unknown, target: string): string => {
  if (error instanceof DomainError) return describeRefusal(error);
  if (error instanceof CredentialsMissing) return error.message;
  const { name, message, code } = error as Error & { code?: string };
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(String((error as Error).cause ?? message))) {
    return `Cannot reach the ${target}. Is \`npm start\` running? (A deployed table: --table and --region.)`;
  }
  if (name === 'ResourceNotFoundException') return `The ${target} has no such table: ${message}`;
  return `${name}: ${message}`;
};

/** `--json`: the result as JSON, or one JSON line per entry for a listing; otherwise the summary. */
const printResult = (result: CommandResult, json: boolean, io: CliIo) => {
  if (!json) io.out(result.summary);
  else if (result.jsonLines) {
    if (result.jsonLines.length > 0) io.out(result.jsonLines.map((line) => JSON.stringify(line)).join('\n'));
  } else io.out(JSON.stringify(result.json, null, 2));
};

/**
 * Runs one command line of the operator CLI and answers its exit code: 0 done, 1 refused or
 * failed (the message says why), 2 wrong command line (with the usage). Help of any kind is
 * answered before the target is configured, so it never touches a database.
 */
export const runCli = async (argv: readonly string[], given: CliIo): Promise<number> => {
  const io: CliIo = {
    out: (text) => given.out(terminalSafe(text)),
    err: (text) => given.err(terminalSafe(text)),
    readStdin: given.readStdin,
  };
  if (argv.some((arg) => /^--(client-)?secret(=|$)/.test(arg))) {
    // Shell history and the process list would keep a secret given as an argument.
    io.err('error: secrets are read from standard input (--secret-stdin), never from the command line');
    return 2;
  }
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof optionTypes; allowPositionals: true; tokens: true }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: optionTypes,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  // The last of two would win: `client delete --id A --id B` deleting B, or an alias's `--org`
  // giving way to another, acts on what the operator may not have meant.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) {
      io.err(`error: --${token.name} is given more than once\n\n${usage()}`);
      return 2;
    }
    seen.add(token.name);
  }
  const { values, positionals } = parsed;
  const [group] = positionals;
  if (positionals.length === 0 || (positionals.length === 1 && group === 'help')) {
    io.out(usage());
    return 0;
  }
  const { name, command, rest, incomplete } = readCommandLine(positionals);
  const knownGroup = group !== undefined && COMMAND_GROUPS.includes(group);
  if (values.help && (command || incomplete)) {
    io.out(command ? commandHelp(name) : groupUsage(group as string));
    return 0;
  }
  /** After a wrong command line: what that command, or those commands, take. */
  const usageOfName = () =>
    command ? usageLine(command) : knownGroup ? groupUsage(group as string) : usage();
  let target = 'DynamoDB';
  try {
    if (!command) throw new UsageError(incomplete ? `${name} needs a command` : `Unknown command "${name}"`);
    // Not repeated back: a stray word may be a secret typed in the wrong place.
    if (!command.argument && rest.length > 0)
      throw new UsageError(`${name} takes options only, not ${rest.length} more word(s)`);
    if (command.argument && rest.length !== 1) {
      throw new UsageError(
        rest.length === 0
          ? `${name} needs its ${command.argument}`
          : `${name} takes one ${command.argument}, not ${rest.length} words`,
      );
    }
    const stray = Object.keys(values).filter(
      (option) => !GLOBAL_OPTIONS.includes(option) && !command.options.includes(option),
    );
    if (stray.length > 0) throw new UsageError(`${name} does not take --${stray.join(', --')}`);
    const configured = configureTarget({
      table: values.table as string | undefined,
      region: values.region as string | undefined,
      endpoint: values.endpoint as string | undefined,
      secretPrefix: values['secret-prefix'] as string | undefined,
    });
    target = configured.description;
    if (!configured.local) await requireOperatorCredentials();
    // Every change the command makes is recorded as the operator's.
    const result: CommandResult = await withAuditScope({ actor: operatorActor() }, () =>
      command.run(values, { readStdin: io.readStdin }, rest[0]),
    );
    printResult(result, values.json === true, io);
    return 0;
  } catch (error) {
    const message = error instanceof UsageError ? error.message : describeFailure(error, target);
    if (values.json) io.err(JSON.stringify({ error: message }));
    else io.err(`error: ${message}${error instanceof UsageError ? `\n\n${usageOfName()}` : ''}`);
    return error instanceof UsageError ? 2 : 1;
  }
};
