// Which optional pages and panels this server has: `gno serve` writes the list into the shell
// (<meta name="gno-features">) from the registry's REST routes, so the UI never offers a
// button whose operation does not exist yet.

const meta = document.querySelector('meta[name="gno-features"]');
const FEATURES = new Set((meta?.getAttribute("content") ?? "").split(/\s+/).filter(Boolean));

export function hasFeature(name) {
  return FEATURES.has(name);
}
