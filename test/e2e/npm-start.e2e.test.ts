import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/global-setup.js';

/** `npm start` as a developer runs it, in its own process group so Ctrl-C can be simulated. */
const running: ChildProcess[] = [];

const npmStart = async (env: Record<string, string>) => {
  const child = spawn('npm', ['start'], {
    env: { ...process.env, ...env },
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
    curlLines: output.split('\n').filter((line) => /^\s+(TOKEN=|curl )/.test(line)),
  };
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
  it('serves the API, prints a curl example that works, stops cleanly and keeps data across restarts', async () => {
    mkdirSync('.tmp', { recursive: true });
    const dataDirectory = mkdtempSync(join('.tmp', 'npm-start-'));
    const env = {
      PORT: String(await freePort()),
      IDP_DYNAMODB_PORT: String(await freePort()),
      IDP_DATA_DIR: dataDirectory,
    };
    const first = await npmStart(env);
    expect(first.curlLines).toHaveLength(2);

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

    await pressCtrlC(first.child);
    expect(javaProcessesOnPort(Number(env.IDP_DYNAMODB_PORT))).toBe('');

    const second = await npmStart(env);
    expect(second.organizationId).toBe(first.organizationId);
    expect(second.clientId).toBe(first.clientId);
    expect(second.clientSecret).toBe(first.clientSecret);
    await pressCtrlC(second.child);
    expect(javaProcessesOnPort(Number(env.IDP_DYNAMODB_PORT))).toBe('');
  });

  it('uses IDP_ADMIN_CLIENT_ID and IDP_ADMIN_CLIENT_SECRET when set, in memory with IDP_IN_MEMORY=1', async () => {
    const env = {
      PORT: String(await freePort()),
      IDP_DYNAMODB_PORT: String(await freePort()),
      IDP_IN_MEMORY: '1',
      IDP_ADMIN_CLIENT_ID: 'ci-admin',
      IDP_ADMIN_CLIENT_SECRET: 'ci-admin-secret-value',
    };
    const started = await npmStart(env);
    expect(started.clientId).toBe('ci-admin');
    expect(started.output).toContain('in memory');
    const response = await fetch(`http://localhost:${env.PORT}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'ci-admin',
        client_secret: 'ci-admin-secret-value',
      }),
    });
    expect(response.status).toBe(200);
    await pressCtrlC(started.child);
    expect(javaProcessesOnPort(Number(env.IDP_DYNAMODB_PORT))).toBe('');
  });
});
