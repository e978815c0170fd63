import type { Help } from 'commander';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_LIST, COMMANDS } from '../../src/cli/commands.js';
import { wrapHelpText } from '../../src/cli/help-wrap.js';

/** Every command registered for real, as `mintlify-etl CMD` would (all modules loaded: a test may). */
async function realProgram(): Promise<Command> {
  const program = new Command('mintlify-etl').configureHelp({
    boxWrap(this: Help, str: string, width: number) {
      return wrapHelpText(this, str, width);
    },
  });
  program.configureOutput({ getOutHelpWidth: () => 80, getErrHelpWidth: () => 80 });
  for (const load of Object.values(COMMANDS)) (await load())(program, async () => {});
  return program;
}

function everyCommand(c: Command): Command[] {
  return c.commands.flatMap((s) => [s, ...everyCommand(s)]);
}

describe('the top-level help lists the commands without loading them', () => {
  it('lists each command with the usage term and summary its own module declares, in order', async () => {
    const program = await realProgram();
    const help = program.createHelp();
    const real = program.commands.map((c) => [c.name(), help.subcommandTerm(c), c.summary()]);
    expect(COMMAND_LIST).toEqual(real);
  });
});

describe("every command's help at 80 columns", () => {
  it('wraps each paragraph of the description once: no line over 80 columns, no fragment left by a second wrap', async () => {
    for (const cmd of everyCommand(await realProgram())) {
      const text = cmd.helpInformation();
      // The description: after the usage line, up to the options or the arguments.
      const lines = text.slice(text.indexOf('\n\n') + 2, text.search(/\n(Options|Arguments):\n/)).split('\n');
      for (const [i, line] of lines.entries()) {
        expect(line.length, `${cmd.name()}: ${line}`).toBeLessThanOrEqual(80);
        const next = lines[i + 1] ?? '';
        // A short line followed by more of the same paragraph is what wrapping twice leaves.
        const fragment =
          line.length < 40 && line.trim() !== '' && /^[^\s-]/.test(line) && /^[a-z(]/.test(next);
        expect(fragment, `${cmd.name()}: "${line}" then "${next}"`).toBe(false);
      }
    }
  });
});
