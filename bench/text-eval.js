// Issue 52's text analysis measured on the team's labelled comments (test/fixtures/text/comments.json, CC0), beside
// a baseline (the `sentiment` package's AFINN score plus plain keyword themes), on all comments and on the held-out
// quarter (every 4th, not looked at while the lexicons were tuned); then the median CPU time per 300-character
// comment (goal: <= 1 ms). No service, no database: the analysis is pure.
//   node bench/text-eval.js            env: ROUNDS (50, analyses per comment for the timing), ERRORS=1 (list the
//                                      misses of the tuning part, never the held-out one)
await import('@swc-node/register/esm-register');
const { loadComments, isHeldOut, figures, ours, baseline, medianCpuMs } = await import('./lib/text-eval.ts');

const comments = loadComments();
const parts = { all: comments, tuning: comments.filter((c) => !isHeldOut(c)), 'held-out': comments.filter(isHeldOut) };
const pct = (x) => `${(x * 100).toFixed(1)}%`.padStart(7);

for (const [name, list] of Object.entries(parts)) {
  const a = figures(list, ours);
  const b = figures(list, baseline);
  console.log(`\n${name}: ${list.length} comments                 ours  baseline`);
  console.log(`  language accuracy              ${pct(a.language)}  ${pct(b.language)}`);
  console.log(`  sentiment accuracy             ${pct(a.sentiment)}  ${pct(b.sentiment)}`);
  for (const l of Object.keys(a.sentimentByLanguage))
    console.log(`    ${l.padEnd(27)}  ${pct(a.sentimentByLanguage[l])}  ${pct(b.sentimentByLanguage[l] ?? 0)}`);
  console.log(`  theme precision                ${pct(a.themePrecision)}  ${pct(b.themePrecision)}`);
  console.log(`  theme recall                   ${pct(a.themeRecall)}  ${pct(b.themeRecall)}`);
  console.log(`  theme micro-F1                 ${pct(a.themeF1)}  ${pct(b.themeF1)}`);
  console.log(`  theme polarity accuracy        ${pct(a.themePolarity)}  ${pct(b.themePolarity)}`);
}

if (process.env.ERRORS) {
  for (const c of parts.tuning) {
    const p = ours(c.text);
    const themes = Object.entries(p.themes)
      .map(([t, s]) => `${t}:${s}`)
      .sort()
      .join(' ');
    const want = Object.entries(c.themes)
      .map(([t, s]) => `${t}:${s}`)
      .sort()
      .join(' ');
    if (p.language !== c.language || (c.sentiment && p.sentiment !== c.sentiment) || themes !== want) {
      console.log(`#${c.id} ${c.text}\n   got  ${p.language} ${p.sentiment} [${themes}]\n   want ${c.language} ${c.sentiment} [${want}]`);
    }
  }
}

console.log(`\nmedian CPU per 300-character comment: ${medianCpuMs(comments, Number(process.env.ROUNDS ?? 50)).toFixed(3)} ms (goal <= 1 ms)`);
