import { Command } from 'commander';
import { addOperator, allOperators, removeOperator } from '../../../services/operators';
import { AdminError, output, type AdminContext } from '../context';
import { adminIo } from '../io';

/** `ops …`: the review console's operators. */
export function opsCommand(ctx: () => AdminContext): Command {
  const ops = new Command('ops').description('review console operators');
  ops.addCommand(usersCommand(ctx));
  return ops;
}

/** `ops users …`: operators kept in the database, who may sign in at once (no restart). */
function usersCommand(ctx: () => AdminContext): Command {
  const users = new Command('users').description('operators who may sign in to the review console, added and removed without a restart');
  users
    .command('add')
    .description('add an operator; the password is asked for without echo (twice), or read from stdin when piped; prints no secret')
    .argument('<name>', 'the name they sign in with, recorded as the reviewer of their decisions')
    .option('--password-stdin', 'read the password from stdin (its first line) even on a terminal', false)
    .action(async (name: string, o: { passwordStdin: boolean }) => {
      const added = await addOperator(ctx(), name, await readPassword(o.passwordStdin, true));
      output({ added: added.name });
    });
  users
    .command('remove')
    .description('remove an operator added with `ops users add`; their next request is refused')
    .argument('<name>')
    .action(async (name: string) => {
      await removeOperator(ctx(), name);
      output({ removed: name });
    });
  users
    .command('list')
    .description('every operator who may sign in; never a hash')
    .action(async () => output(await allOperators(ctx())));
  return users;
}

/**
 * A password from the terminal (hidden; asked twice when `confirm`) or from stdin (its first line,
 * when piped or with --password-stdin). Never from an argument: arguments show in `ps` and shell history.
 */
async function readPassword(fromStdin: boolean, confirm = false): Promise<string> {
  if (fromStdin || !adminIo().stdin.isTTY) return (await readAll()).split(/\r?\n/)[0];
  const password = await readHidden('Password: ');
  if (confirm && (await readHidden('Again: ')) !== password) throw new AdminError('the two passwords differ');
  return password;
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of adminIo().stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A line typed on the terminal without echoing it (the password never shows nor lands in shell history). */
function readHidden(prompt: string): Promise<string> {
  adminIo().stderr.write(prompt);
  // Only a terminal is read this way, and a terminal is this process's own stdin.
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
      adminIo().stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}
