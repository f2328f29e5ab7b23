// The GraphQL pages the tests hold to a number of SQL statements and the benches measure under load. Plain JavaScript
// so that `node bench/<name>.js` imports the very text the tests run, with no TypeScript loader.

/** The three-level page: surveys with their steps and the steps' metrics (test/graphql/sql-count, bench/graphql-list). */
export const THREE_LEVEL_QUERY = `query($b: ID!, $s: Int) {
  surveys(business: $b, pageSize: $s) {
    total hasMore
    data { id name status createdAt steps { id position type metrics { metrics { id name scale { min max } } } } }
  }
}`;

/**
 * What the REST route `GET /v2/businesses/{b}/surveys?pageSize=50&expand=steps.metrics.metrics` selects, written as a
 * GraphQL client would (REST fills `business` and `survey` from what it knows): test/rest/sql-parity, bench/rest-vs-graphql.
 */
export const REST_SURVEY_PAGE_QUERY = `query($b: ID!) {
  surveys(business: $b, page: 0, pageSize: 50) {
    page pageSize total hasMore
    data {
      id object name description status closingText reviewUrl languages url createdAt updatedAt
      steps {
        id object position type required content inputType validation logic createdAt updatedAt
        metrics { metrics { id object name description scale { min max } createdAt updatedAt } }
      }
    }
  }
}`;
