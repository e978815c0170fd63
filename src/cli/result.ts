/** What a command hands back to main: only main prints the JSON and exits. */
export interface CommandResult {
  readonly exitCode: number;
  /** Printed on stdout as one JSON document when the command was asked for --json. */
  readonly json?: unknown;
}
