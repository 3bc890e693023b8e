import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { BrowserSession, hiddenField } from '../support/browser-session.js';
import { freePort, SHORT_RUN_JAVA_OPTIONS } from '../support/global-setup.js';
import { PASSWORD } from '../support/sign-in-flow.js';
import { useTempDirs } from '../support/temp-dir.js';

/**
 * The environment of a developer's shell: without the SDK switch that vitest.config.ts sets for
 * the test processes, so `npm start` has to silence the SDK's Node version notice itself. Java
 * gets the test run's options (global-setup.ts): they change its CPU, not what it answers.
 */
const shellEnv = (env: Record<string, string>): NodeJS.ProcessEnv => {
  const {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _warning,
    IDP_ISSUER: _issuer,
    IDP_TABLE_NAME: _table,
    ...rest
  } = process.env;
  return { ...rest, JAVA_TOOL_OPTIONS: SHORT_RUN_JAVA_OPTIONS, ...env };
};

/** `npm start` as a developer runs it, in its own process group so Ctrl-C can be simulated. */
const running: ChildProcess[] = [];

const npmStart = async (env: Record<string, string>) => {
  const child = spawn('npm', ['start'], {
    env: shellEnv(env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 90_000);
    const check = () => {
      if (output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  const field = (label: string) => output.match(new RegExp(`${label}:\\s+(\\S+)`))?.[1];
  return {
    child,
    output,
    organizationId: field('Organization'),
    clientId: field('Admin client id'),
    clientSecret: field('Admin secret'),
    // The "Try it" example (the sign-in walk-through after it needs a browser).
    curlLines: (output.split('Sign a person in')[0] ?? '')
      .split('\n')
      .filter((line) => /^\s+(TOKEN=|curl )/.test(line)),
  };
};

/** Does what the printed sign-in steps say: the invitation, the authorize URL, the pasted exchange. */
const followSignInSteps = async (output: string) => {
  const [invitation, authorize] = output.match(/^ {5}http\S+$/gm)?.map((line) => line.trim()) ?? [];
  const exchange = output.match(/^ {5}curl .*code=PASTE_THE_CODE$/m)?.[0];
  expect(invitation).toContain('/signin/invitation?token=');
  const browser = new BrowserSession();
  const form = await (await browser.fetch(invitation as string)).text();
  const chosen = await browser.submit(new URL('/signin/invitation', invitation).href, {
    token: hiddenField(form, 'token') ?? '',
    csrf: hiddenField(form, 'csrf') ?? '',
    password: PASSWORD,
    confirm: PASSWORD,
  });
  expect(chosen.status).toBe(200);
  const signInPage = await (await browser.fetch(authorize as string)).text();
  const signedIn = await browser.submit(new URL('/signin', authorize).href, {
    request: hiddenField(signInPage, 'request') ?? '',
    email: 'admin@example.com',
    password: PASSWORD,
  });
  const code = new URL(signedIn.headers.get('location') ?? '').searchParams.get('code');
  const tokens = execFileSync('bash', ['-c', exchange?.replace('PASTE_THE_CODE', code ?? '') ?? 'false'], {
    encoding: 'utf8',
  });
  const { access_token } = JSON.parse(tokens) as { access_token: string };
  // The person holds the administrator role.
  const users = await fetch(new URL('/idp/users', authorize), {
    headers: { authorization: `Bearer ${access_token}` },
  });
  expect(users.status).toBe(200);
};

/** Ctrl-C in a terminal signals the whole foreground process group. */
const pressCtrlC = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-(child.pid as number), 'SIGINT');
  });

const javaProcessesOnPort = (port: number): string => {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*-port ${port}`], { encoding: 'utf8' }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

/**
 * The npm process can end before the program it ran has stopped DynamoDB Local (seen once on a
 * loaded machine), so the check gives Java the few seconds that stop may take.
 */
const noJavaLeftOn = (port: number) =>
  expect.poll(() => javaProcessesOnPort(port), { timeout: 10_000, interval: 200 }).toBe('');

/** Another program holding `port` (0: any free one) on `host` (undefined: every address). */
const occupyPort = async ({ onTestFinished }: TestContext, port: number, host?: string): Promise<number> => {
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
};

/**
 * The program behind `npm start` (npm adds its own lines when a script fails), to its exit; in its
 * own process group, so a failed test leaves nothing running (tsx runs the script in a child).
 */
const startLocal = ({ onTestFinished }: TestContext, env: Record<string, string>) => {
  const child = spawn('node_modules/.bin/tsx', ['bin/local.ts'], {
    env: shellEnv({ IDP_IN_MEMORY: '1', ...env }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, output })),
  );
  return { child, exited };
};

/** Until Java runs for `port`: it has passed the port checks and has not bound its port yet. */
const waitForJavaOnPort = async (started: ReturnType<typeof startLocal>, port: number) => {
  while (!javaProcessesOnPort(port)) {
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${(await started.exited).output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** Exactly the one line naming the variable: no stack frames, no Java, no SDK notice. */
const expectPortInUseLine = (
  result: { code: number | null; output: string },
  port: number,
  what: string,
  variable: string,
) => {
  expect(result.code).toBe(1);
  expect(result.output).not.toMatch(/^\s+at /m);
  expect(result.output).not.toContain('java.');
  expect(result.output).not.toContain('NodeVersionSupportWarning');
  expect(result.output.split('\n')).toEqual([
    `Port ${port} is in use (${what}). Set ${variable} to a free port, e.g. ${variable}=${port + 1} npm start`,
    '',
  ]);
};

afterEach(() => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null) {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

describe('npm start', () => {
  const newDataDirectory = useTempDirs('npm-start');

  it('serves the API with the admin credentials it is given, prints a curl example and sign-in steps that work, stops cleanly and keeps data across restarts', async () => {
    const dataDirectory = newDataDirectory();
    const env = {
      PORT: String(await freePort()),
      IDP_DYNAMODB_PORT: String(await freePort()),
      IDP_DATA_DIR: dataDirectory,
    };
    // The first start registers the administrator client it is asked for; the restart keeps it.
    const first = await npmStart({
      ...env,
      IDP_ADMIN_CLIENT_ID: 'ci-admin',
      IDP_ADMIN_CLIENT_SECRET: 'ci-admin-secret-value',
    });
    expect([first.clientId, first.clientSecret]).toEqual(['ci-admin', 'ci-admin-secret-value']);
    expect(first.curlLines).toHaveLength(2);
    expect(first.output).not.toContain('NodeVersionSupportWarning');

    // Paste the printed example into a shell, as the README says.
    const printed = execFileSync('bash', ['-c', first.curlLines.join('\n')], { encoding: 'utf8' });
    const permissions = JSON.parse(printed) as { id: string }[];
    expect(permissions.map((permission) => permission.id)).toContain('USER.LIST');
    const status = execFileSync(
      'bash',
      ['-c', `${first.curlLines[0]}\n${first.curlLines[1]} -o /dev/null -w '%{http_code}'`],
      {
        encoding: 'utf8',
      },
    );
    expect(status).toBe('200');
    await followSignInSteps(first.output);

    // DynamoDB Local's port is open to the network: its table is in the database of the data
    // directory's own access key id, which only its owner can read. Positive control: with it,
    // the table is there; with any other key id (what someone else would send), nothing is.
    const keyFile = join(dataDirectory, 'dynamodb', 'access-key-id');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const tablesSeenBy = async (accessKeyId: string) =>
      (
        await new DynamoDBClient({
          endpoint: `http://127.0.0.1:${env.IDP_DYNAMODB_PORT}`,
          region: 'us-east-1',
          credentials: { accessKeyId, secretAccessKey: 'any' },
        }).send(new ListTablesCommand({}))
      ).TableNames;
    expect(await tablesSeenBy(readFileSync(keyFile, 'utf8').trim())).toEqual(['idp']);
    expect(await tablesSeenBy('local')).toEqual([]);

    await pressCtrlC(first.child);
    await noJavaLeftOn(Number(env.IDP_DYNAMODB_PORT));

    const second = await npmStart(env);
    expect(second.organizationId).toBe(first.organizationId);
    expect(second.clientId).toBe(first.clientId);
    expect(second.clientSecret).toBe(first.clientSecret);
    expect(second.output).toContain('admin@example.com has a password');
    await pressCtrlC(second.child);
    await noJavaLeftOn(Number(env.IDP_DYNAMODB_PORT));
    // Two starts, each given up after 90 s (npmStart): a limit for a start that never comes, not
    // a measure of speed; on a loaded 2-core machine the pair can take longer than the default 60 s.
  }, 200_000);

  describe.concurrent('with a port taken, prints the one line naming the variable and exits 1', () => {
    it('IDP_DYNAMODB_PORT, before Java starts', async (context) => {
      const dynamoPort = await occupyPort(context, 0, '127.0.0.1');
      const result = await startLocal(context, {
        PORT: String(await freePort()),
        IDP_DYNAMODB_PORT: String(dynamoPort),
      }).exited;
      expectPortInUseLine(result, dynamoPort, 'DynamoDB Local', 'IDP_DYNAMODB_PORT');
      expect(javaProcessesOnPort(dynamoPort)).toBe('');
    });

    it('PORT, before Java starts', async (context) => {
      const port = await occupyPort(context, 0);
      const dynamoPort = await freePort();
      const result = await startLocal(context, { PORT: String(port), IDP_DYNAMODB_PORT: String(dynamoPort) })
        .exited;
      expectPortInUseLine(result, port, 'API', 'PORT');
      expect(javaProcessesOnPort(dynamoPort)).toBe('');
    });

    it('PORT, taken while DynamoDB Local starts (the API server cannot listen; DynamoDB Local stops)', async (context) => {
      const port = await freePort();
      const dynamoPort = await freePort();
      const started = startLocal(context, { PORT: String(port), IDP_DYNAMODB_PORT: String(dynamoPort) });
      await waitForJavaOnPort(started, dynamoPort);
      // IDP_IN_MEMORY=1 (startLocal's): DynamoDB Local keeps nothing on disk.
      expect(
        execFileSync('pgrep', ['-af', `DynamoDBLocal.jar.*-port ${dynamoPort}`], { encoding: 'utf8' }),
      ).toContain('-inMemory');
      // And it sends no telemetry to AWS (docs/operating.md).
      const environment = readFileSync(`/proc/${javaProcessesOnPort(dynamoPort)}/environ`, 'utf8');
      expect(environment.split('\0')).toContain('DDB_LOCAL_TELEMETRY=0');
      await occupyPort(context, port, '127.0.0.1');
      expectPortInUseLine(await started.exited, port, 'API', 'PORT');
      expect(javaProcessesOnPort(dynamoPort)).toBe('');
    });
  });
});
