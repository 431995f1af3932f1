// Colour decided as CLI libraries decide it: NO_COLOR wins, then FORCE_COLOR, then CLICOLOR_FORCE, then the
// terminal (and CLICOLOR=0 turns it off there).
export function wantsColour(stream) {
  const env = process.env;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return !["0", "false"].includes(env.FORCE_COLOR);
  if ((env.CLICOLOR_FORCE ?? "0") !== "0") return true;
  return env.CLICOLOR !== "0" && Boolean(stream.isTTY);
}

export function green(text, stream) {
  return wantsColour(stream) ? `\x1b[32m${text}\x1b[0m` : text;
}
