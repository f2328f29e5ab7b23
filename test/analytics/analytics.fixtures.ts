import pg from 'pg';
import type { Client } from '../helpers/graphql.js';

/** A day in milliseconds: the analytics tests' ranges are whole days around now. */
export const DAY = 86_400_000;

/** A connection of the test's own to its database: the SQL the analytics tests write directly (the triggers keep the rollups). */
export async function rawConnection(url: string): Promise<pg.Client> {
  const sql = new pg.Client(url);
  sql.on('error', () => {});
  await sql.connect();
  return sql;
}

/** A metric of `business`; `input` in GraphQL syntax. */
export async function createMetric(a: Client, business: string, input = '{name: "Food"}'): Promise<string> {
  return (await a.data(`mutation($b: ID!) { createMetric(business: $b, input: ${input}) { id } }`, { b: business })).createMetric.id;
}

/** An active survey "Visit" of `business`, and a function adding a step to it (answering the step's id). */
export async function visitSurvey(a: Client, business: string) {
  const survey: string = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Visit", status: active}) { id } }`, { b: business }))
    .createSurvey.id;
  const step = async (input: object): Promise<string> =>
    (
      await a.data(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
        b: business,
        s: survey,
        i: input,
      })
    ).createSurveyStep.id;
  return { survey, step };
}

/** Where each analytics test starts: its raw connection, the "Visit" survey and its step adder, a "Food" metric and a step rating it. */
export async function ratedVisit(url: string, a: Client, business: string) {
  const sql = await rawConnection(url);
  const { survey, step } = await visitSurvey(a, business);
  const food = await createMetric(a, business);
  const rate = await step({ type: 'metrics', metrics: { metrics: [food] } });
  return { sql, survey, step, food, rate };
}
