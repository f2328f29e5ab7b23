// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package and the top functions.
//   node bench/lib/profile-top.js file.cpuprofile [N] [WINDOW]
// WINDOW (seconds): only the samples from WINDOW+1 s to 1 s before the profile's end, i.e. the measured load of a
// bench that stops the service right after it (start-up, seeding and shutdown left out).
import fs from 'node:fs';

const [file, n = '25', window] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
const times = [];
let t = profile.startTime;
for (const dt of profile.timeDeltas) times.push((t += dt));
const from = window ? profile.endTime - (Number(window) + 1) * 1e6 : -Infinity;
const to = window ? profile.endTime - 1e6 : Infinity;
for (let i = 0; i < profile.samples.length; i++) {
  if (times[i] < from || times[i] > to) continue;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
}
let total = 0;
const byFunction = new Map();
const byPackage = new Map();
const packageOf = (url) => {
  if (!url) return '(native/vm)';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node core';
  if (url.includes('/dist/')) return 'service';
  return url;
};
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  if (callFrame.functionName === '(idle)' || callFrame.functionName === '(program)') continue;
  total += us;
  const name = `${callFrame.functionName || '(anonymous)'} ${packageOf(callFrame.url)}:${callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  const pkg = callFrame.functionName === '(garbage collector)' ? '(garbage collector)' : packageOf(callFrame.url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`busy ${(total / 1000).toFixed(0)} ms sampled`);
console.log('\nby package:');
for (const [k, v] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(pct(v), k);
console.log('\nby function (self):');
for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(pct(v), k);
