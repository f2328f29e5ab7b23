/** The list conventions' numbers (docs/architecture.md, "Lists"), for GraphQL, the REST adapter, OpenAPI and the cost limit alike. */
export const DEFAULT_PAGE_SIZE = 20;
/** A larger page size is refused (400), never silently capped. */
export const MAX_PAGE_SIZE = 100;
/** Values of one `in` filter. */
export const MAX_IN_VALUES = 100;
