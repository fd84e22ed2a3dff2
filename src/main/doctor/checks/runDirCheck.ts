import path from 'node:path';
import { fail, ok, type Check, type Finding } from '../finding.js';

/** What doctor needs to know about a file; undefined when it does not exist. */
export interface FileFacts {
  readonly mode: number;
  readonly uid: number;
}

export interface RunDirCheckDeps {
  readonly runDir: string;
  readonly socket: string;
  readonly clientSecret: string;
  readonly uid: number;
  readonly platform: NodeJS.Platform;
  readonly stat: (file: string) => Promise<FileFacts | undefined>;
}

/**
 * The run dir guards the socket and the client secret: another user who can enter it could
 * swap the socket or read the secret and ask the broker for anything. The broker refuses a
 * run dir that is not the user's, so that is a failure, as is anything open to others.
 */
export function runDirCheck(deps: RunDirCheckDeps): Check {
  return {
    name: 'run dir',
    async run() {
      if (deps.platform === 'win32') return [ok(deps.socket, 'a named pipe; Windows guards it with its ACL')];
      const dir = await deps.stat(deps.runDir);
      if (!dir) return [ok(deps.runDir, 'not created yet (the broker makes it, 0700, at its first start)')];
      const findings: Finding[] = [];
      if (dir.uid !== deps.uid) {
        findings.push(
          fail(
            deps.runDir,
            `belongs to uid ${dir.uid}, not to you (uid ${deps.uid}); the broker will not start`,
            `remove it (rm -r ${deps.runDir}) or set KUBECRED_HOME elsewhere`,
          ),
        );
      }
      findings.push(modeFinding(deps.runDir, dir.mode, 0o700));
      // A home with a long path puts the socket under the temp dir instead: its dir counts too.
      const socketDir = path.dirname(deps.socket);
      const socketDirFacts = socketDir === deps.runDir ? undefined : await deps.stat(socketDir);
      if (socketDirFacts) findings.push(modeFinding(socketDir, socketDirFacts.mode, 0o700));
      for (const file of [deps.socket, deps.clientSecret]) {
        const facts = await deps.stat(file);
        if (facts) findings.push(modeFinding(file, facts.mode, 0o600));
      }
      return findings;
    },
  };
}

function modeFinding(file: string, mode: number, wanted: number): Finding {
  const actual = mode & 0o777;
  if ((actual & 0o077) === 0) return ok(file, `mode ${octal(actual)}, private to you`);
  return fail(
    file,
    `mode ${octal(actual)}: other users can ${wanted === 0o700 ? 'enter it' : 'open it'}; it must be ${octal(wanted)}`,
    `chmod ${octal(wanted).slice(1)} ${file}`,
  );
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
