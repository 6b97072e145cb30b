/** Types of start-command.mjs (plain JS so `npm start` runs without a build step). */
export function startCommand(opts: {
  execPath: string;
  electronVitePackageJson: string;
  bin: string;
  args: string[];
  platform?: NodeJS.Platform;
}): { command: string; args: string[] };
