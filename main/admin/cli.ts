import { runAdmin } from './run';

/** `npm run admin -- …`: the operators' command line on this process's streams (main/admin/run.ts). */
void runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
