// The floor of bench/graphql-list.js: the same surveys page (THREE_LEVEL_QUERY's answer, byte for byte in shape)
// served by a minimal hand-written Node http + pg handler from the same 3 SQL statements, then JSON.stringify. No
// GraphQL, no ORM, no token check: what the page costs with nothing on top. Run as its own process so its CPU is
// measured the same way as the service's:
//   DATABASE_URL=... PORT=... node bench/lib/floor.js
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const SURVEYS = `select id, name, status, created_at, count(*) over () as total from survey where business_id = $1
  order by created_at desc, id desc limit $2 offset 0`;
const STEPS = `select id, survey_id, position, type, metric_ids from survey_step where survey_id = any($1)
  order by position asc, id asc`;
const METRICS = 'select id, name, scale_min, scale_max from metric where id = any($1)';

async function page(business, pageSize) {
  const surveys = (await pool.query(SURVEYS, [business, pageSize])).rows;
  const steps = (await pool.query(STEPS, [surveys.map((s) => s.id)])).rows;
  const metricIds = [...new Set(steps.flatMap((s) => s.metric_ids))];
  const metrics = new Map((await pool.query(METRICS, [metricIds])).rows.map((m) => [m.id, m]));
  const stepsBySurvey = new Map(surveys.map((s) => [s.id, []]));
  for (const s of steps) {
    stepsBySurvey.get(s.survey_id).push({
      id: s.id,
      position: s.position,
      type: s.type,
      metrics:
        s.type === 'metrics'
          ? {
              metrics: s.metric_ids
                .map((id) => metrics.get(id))
                .filter(Boolean)
                .map((m) => ({ id: m.id, name: m.name, scale: { min: m.scale_min, max: m.scale_max } })),
            }
          : null,
    });
  }
  const total = surveys.length ? Number(surveys[0].total) : 0;
  return {
    total,
    hasMore: pageSize < total,
    data: surveys.map((s) => ({ id: s.id, name: s.name, status: s.status, createdAt: s.created_at.getTime(), steps: stepsBySurvey.get(s.id) })),
  };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const { variables } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = JSON.stringify({ data: { surveys: await page(variables.b, variables.s ?? 20) } });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
