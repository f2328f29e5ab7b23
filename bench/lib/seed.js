// The page both list benches measure: SURVEYS surveys x STEPS metric steps x METRICS_PER_STEP metrics, seeded through
// the GraphQL API itself (so it is exactly what a client could have created).
export const SURVEYS = 50;
export const STEPS = 5;
export const METRICS_PER_STEP = 3;

/** A tenant with the page seeded; returns its token, business and a GraphQL helper that throws on errors. */
export async function seedSurveyPage(service) {
  const { accessToken, business } = await service.tenantToken('surveys:read surveys:write metrics:write');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` };
  const gql = async (query, variables) => {
    const res = await fetch(`${service.base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const body = await res.json();
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const b = business.id;
  const metrics = [];
  for (let i = 0; i < METRICS_PER_STEP * 2; i++) {
    metrics.push(
      (await gql('mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id } }', { b, n: `Metric ${i}` })).createMetric.id,
    );
  }
  await Promise.all(
    Array.from({ length: SURVEYS }, async (_, i) => {
      const s = (await gql('mutation($b: ID!, $n: String!) { createSurvey(business: $b, input: {name: $n, status: active}) { id } }', { b, n: `Survey ${i}` }))
        .createSurvey.id;
      for (let p = 0; p < STEPS; p++) {
        const ids = metrics.slice(p % 2, (p % 2) + METRICS_PER_STEP);
        await gql(
          'mutation($b: ID!, $s: ID!, $m: [ID!]!) { createSurveyStep(business: $b, survey: $s, input: {type: metrics, metrics: {metrics: $m}}) { id } }',
          { b, s, m: ids },
        );
      }
    }),
  );
  return { accessToken, business, headers, gql };
}
