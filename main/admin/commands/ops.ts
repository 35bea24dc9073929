import { Command } from 'commander';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../../platform/passwords';
import { AdminError, output } from '../context';

/** `ops …`: the review console's operators. */
export function opsCommand(): Command {
  const ops = new Command('ops').description('review console operators');
  ops
    .command('hash-password')
    .description(`read a password from stdin (typed hidden on a terminal, or piped) and print its scrypt hash for OPS_USERS as name:<hash>`)
    .action(async () => {
      const password = process.stdin.isTTY ? await readHidden('Password: ') : (await readAll()).replace(/\r?\n$/, '');
      if (password.length < MIN_PASSWORD_LENGTH) throw new AdminError(`a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
      output(await hashPassword(password));
    });
  return ops;
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A line typed on the terminal without echoing it (the password never shows nor lands in shell history). */
function readHidden(prompt: string): Promise<string> {
  process.stderr.write(prompt);
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  let typed = '';
  return new Promise((resolve, reject) => {
    const onData = (s: string) => {
      for (const ch of s) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(typed);
        }
        if (ch === '\u0003') {
          done();
          return reject(new AdminError('cancelled'));
        }
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}
