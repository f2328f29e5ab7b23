/**
 * The REST surface (interface 4.3 to 4.8, plus locations, menu items and the custom integration): each row maps a method
 * and path onto one GraphQL root field. Everything else (documents, query parsing, OpenAPI) is derived from these
 * rows and the schema.
 */
/** `action`: a POST that runs a mutation other than create (redeliver, rotate-secret...), its body the `input`. */
/** `report`: a GET whose query parameters are the query's arguments, answered `{object: "list", data}` or as CSV. */
/** `compute`: a POST that writes nothing: its JSON body holds the query's arguments, answered `{object: "list", data}`. */
export type RouteKind = 'list' | 'get' | 'create' | 'update' | 'delete' | 'connect' | 'disconnect' | 'action' | 'report' | 'compute';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The route kinds that run a GraphQL query (the rest run a mutation). */
export const isQueryRoute = (route: { kind: RouteKind }): boolean =>
  route.kind === 'list' || route.kind === 'get' || route.kind === 'report' || route.kind === 'compute';

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI-style template: /v2/businesses/{business}/surveys/{survey} */
  path: string;
  kind: RouteKind;
  /** The GraphQL root field (Query or Mutation). */
  field: string;
  /** Path parameter -> GraphQL argument. */
  params: Record<string, string>;
  /** The `object` of the single-object envelope (the resource name in lower case). */
  object: string;
  /** Success status: 200, 201 or 204. */
  status: 200 | 201 | 204;
  /** Tag in the OpenAPI document. */
  tag: string;
  summary: string;
  /** Answered with Deprecation and Sunset headers (the older v1 list). */
  deprecated?: { deprecation: string; sunset: string; successor: string };
}

interface ResourceSpec {
  base: string;
  /** Path parameter naming one item: `survey` in /surveys/{survey}. */
  idParam: string;
  /** Parent path parameters other than business, each passed as the argument of the same name. */
  parents?: string[];
  object: string;
  tag: string;
  label: string;
  list?: string;
  get?: string;
  create?: string;
  update?: string;
  delete?: string;
  /** The POST's summary when it is more than "Create a <label>". */
  createSummary?: string;
}

const BUSINESS = '/v2/businesses/{business}';

function resource(spec: ResourceSpec): RouteDef[] {
  const collection: Record<string, string> = { business: 'business' };
  for (const parent of spec.parents ?? []) collection[parent] = parent;
  const item = { ...collection, [spec.idParam]: 'id' };
  const one = `${spec.base}/{${spec.idParam}}`;
  const common = { object: spec.object, tag: spec.tag };
  const rows: RouteDef[] = [];
  if (spec.list)
    rows.push({ ...common, method: 'GET', path: spec.base, kind: 'list', field: spec.list, params: collection, status: 200, summary: `List ${spec.label}s` });
  if (spec.create)
    rows.push({
      ...common,
      method: 'POST',
      path: spec.base,
      kind: 'create',
      field: spec.create,
      params: collection,
      status: 201,
      summary: spec.createSummary ?? `Create a ${spec.label}`,
    });
  if (spec.get) rows.push({ ...common, method: 'GET', path: one, kind: 'get', field: spec.get, params: item, status: 200, summary: `Get a ${spec.label}` });
  if (spec.update)
    rows.push({ ...common, method: 'PATCH', path: one, kind: 'update', field: spec.update, params: item, status: 200, summary: `Update a ${spec.label}` });
  if (spec.delete)
    rows.push({ ...common, method: 'DELETE', path: one, kind: 'delete', field: spec.delete, params: item, status: 204, summary: `Delete a ${spec.label}` });
  return rows;
}

const crud = (name: string, plural: string) => ({
  list: plural,
  get: name,
  create: `create${name[0].toUpperCase()}${name.slice(1)}`,
  update: `update${name[0].toUpperCase()}${name.slice(1)}`,
  delete: `delete${name[0].toUpperCase()}${name.slice(1)}`,
});

/** Feedback flows (issue 16): CRUD, a dry run, their requests (read-only) and the opt-out list. */
function feedbackFlows(): RouteDef[] {
  const action = (path: string, field: string, params: Record<string, string>, object: string, summary: string): RouteDef => ({
    method: 'POST',
    path,
    kind: 'action',
    field,
    params,
    object,
    status: 200,
    tag: 'Feedback flows',
    summary,
  });
  return [
    ...resource({
      base: `${BUSINESS}/feedback-flows`,
      idParam: 'flow',
      object: 'feedbackflow',
      tag: 'Feedback flows',
      label: 'feedback flow',
      ...crud('feedbackFlow', 'feedbackFlows'),
    }),
    action(
      `${BUSINESS}/feedback-flows/{flow}/simulate`,
      'simulateFeedbackFlow',
      { business: 'business', flow: 'id' },
      'feedbackflowsimulation',
      'A dry run of the flow on an order: whether it matches, when, on which channel, the message',
    ),
    ...resource({
      base: `${BUSINESS}/feedback-requests`,
      idParam: 'request',
      object: 'feedbackrequest',
      tag: 'Feedback flows',
      label: 'feedback request',
      list: 'feedbackRequests',
      get: 'feedbackRequest',
    }),
    action(
      `${BUSINESS}/feedback-suppressions`,
      'suppressFeedbackContact',
      { business: 'business' },
      'feedbacksuppression',
      'Put an e-mail address and/or phone number on the opt-out list',
    ),
  ];
}

/** The delivery log's actions (issue 11): each a POST running one mutation. */
function webhookActions(): RouteDef[] {
  const webhook = `${BUSINESS}/webhooks/{webhook}`;
  const row = (path: string, field: string, params: Record<string, string>, object: string, summary: string): RouteDef => ({
    method: 'POST',
    path,
    kind: 'action',
    field,
    params,
    object,
    status: 200,
    tag: 'Webhooks',
    summary,
  });
  const one = { business: 'business', webhook: 'id' };
  return [
    row(
      `${webhook}/deliveries/{delivery}/redeliver`,
      'redeliverWebhookDelivery',
      { business: 'business', webhook: 'webhook', delivery: 'id' },
      'webhookdelivery',
      'Send a delivery again now, with the same webhook-id',
    ),
    row(`${webhook}/recover`, 'recoverWebhook', one, 'webhookrecovery', 'Send again every failed or exhausted delivery created in {since, until}'),
    row(`${webhook}/test`, 'testWebhook', one, 'webhookdelivery', 'Send a webhook.test event to this webhook only'),
    row(`${webhook}/rotate-secret`, 'rotateWebhookSecret', one, 'webhook', 'A new signing secret, answered once; the old one also signs for 24 h'),
  ];
}

/** Issue 13's analytics: read-only reports over the rollups. */
function analyticsReports(): RouteDef[] {
  const row = (path: string, field: string, summary: string): RouteDef => ({
    method: 'GET',
    path: `${BUSINESS}/analytics/${path}`,
    kind: 'report',
    field,
    params: { business: 'business' },
    object: 'analytics',
    status: 200,
    tag: 'Analytics',
    summary,
  });
  return [
    row('metrics', 'analyticsMetrics', 'Metric ratings per bucket: count, mean, stddev, median, quartiles, distribution, CSAT'),
    row('nps', 'analyticsNps', 'NPS per bucket: promoters, passives, detractors, score'),
    row('response-rate', 'analyticsResponseRate', 'Orders per bucket, and those with a completed submission'),
    row(
      'menu-items',
      'analyticsMenuItems',
      "Per menu item: metric ratings through the orders behind the feedback (source=order) and the items step's own ratings (source=direct)",
    ),
    row('funnel', 'analyticsFunnel', 'Per step of a survey: responses that reached it, answered it, stopped at it'),
    row('themes', 'analyticsThemes', 'Per theme and bucket: text answers read as speaking of it, by sentiment (positive, neutral, negative)'),
    row('theme-words', 'analyticsThemeWords', 'Per theme and sentiment: the words guests use most, most used first'),
    row('recovery', 'analyticsRecovery', "Unhappy guests' cases per bucket: replies and how fast, resolutions, recoveries, recovered revenue"),
  ];
}

/** The Custom order webhook integration: at most one per business, so one path without an id. */
function customIntegration(): RouteDef[] {
  const row = (method: HttpMethod, kind: RouteKind, field: string, status: RouteDef['status'], summary: string): RouteDef => ({
    method,
    path: `${BUSINESS}/integrations/custom`,
    kind,
    field,
    params: { business: 'business' },
    object: 'custom_integration',
    status,
    tag: 'Custom integration',
    summary,
  });
  return [
    row('GET', 'get', 'customIntegration', 200, 'The Custom order webhook integration (404 when not connected; never the secret)'),
    row('PUT', 'connect', 'connectCustomIntegration', 200, 'Connect the Custom order webhook: answers the secret once; calling it again rotates the secret'),
    row('DELETE', 'disconnect', 'disconnectCustomIntegration', 204, 'Disconnect the Custom order webhook: every secret stops working (404 when not connected)'),
  ];
}

/** The business itself (issue 36): its id is the path's {business}; the logo's upload is rest-adapter/logo.routes.ts. */
function businessItself(): RouteDef[] {
  const common = { path: BUSINESS, object: 'business', tag: 'Business' };
  return [
    {
      ...common,
      method: 'GET',
      kind: 'get',
      field: 'businessProfile',
      params: { business: 'business' },
      status: 200,
      summary: 'The business: its name and its face to guests',
    },
    {
      ...common,
      method: 'PATCH',
      kind: 'update',
      field: 'updateBusiness',
      params: { business: 'id' },
      status: 200,
      summary: 'Change the name, display name, brand colour (white text on it must reach 4.5:1), review link or Reply-To',
    },
  ];
}

export const ROUTES: RouteDef[] = [
  ...businessItself(),
  ...resource({ base: `${BUSINESS}/surveys`, idParam: 'survey', object: 'survey', tag: 'Surveys', label: 'survey', ...crud('survey', 'surveys') }),
  ...resource({
    base: `${BUSINESS}/surveys/{survey}/submissions`,
    idParam: 'submission',
    parents: ['survey'],
    object: 'submission',
    tag: 'Submissions',
    label: 'submission',
    ...crud('submission', 'submissions'),
  }),
  ...resource({
    base: `${BUSINESS}/surveys/{survey}/steps`,
    idParam: 'step',
    parents: ['survey'],
    object: 'surveystep',
    tag: 'Survey steps',
    label: 'survey step',
    ...crud('surveyStep', 'surveySteps'),
  }),
  ...resource({ base: `${BUSINESS}/metrics`, idParam: 'metric', object: 'metric', tag: 'Metrics', label: 'metric', ...crud('metric', 'metrics') }),
  ...resource({
    base: `${BUSINESS}/credentials`,
    idParam: 'credential',
    object: 'credential',
    tag: 'Credentials',
    label: 'credential',
    ...crud('credential', 'credentials'),
    update: undefined, // interface 4.7: no update operation
  }),
  ...resource({
    base: `${BUSINESS}/orders`,
    idParam: 'order',
    object: 'order',
    tag: 'Orders',
    label: 'order',
    ...crud('order', 'orders'),
    delete: undefined, // interface 4.8: orders have no delete operation
  }),
  ...resource({ base: `${BUSINESS}/webhooks`, idParam: 'webhook', object: 'webhook', tag: 'Webhooks', label: 'webhook', ...crud('webhook', 'webhooks') }),
  ...resource({
    base: `${BUSINESS}/webhooks/{webhook}/deliveries`,
    idParam: 'delivery',
    parents: ['webhook'],
    object: 'webhookdelivery',
    tag: 'Webhooks',
    label: 'webhook delivery',
    list: 'webhookDeliveries',
    get: 'webhookDelivery',
  }),
  ...webhookActions(),
  ...resource({ base: `${BUSINESS}/events`, idParam: 'event', object: 'event', tag: 'Events', label: 'event', list: 'events', get: 'event' }),
  ...resource({
    base: `${BUSINESS}/locations`,
    idParam: 'location',
    object: 'location',
    tag: 'Locations',
    label: 'location',
    ...crud('location', 'locations'),
  }),
  ...feedbackFlows(),
  ...resource({
    base: `${BUSINESS}/menu-items`,
    idParam: 'menuItem',
    object: 'menuitem',
    tag: 'Menu items',
    label: 'menu item',
    list: 'menuItems',
    get: 'menuItem',
  }),
  // Adding a member invites the address, whatever it is: the answer is an invitation, and the person joins by accepting.
  ...resource({
    base: `${BUSINESS}/members`,
    idParam: 'member',
    object: 'member',
    tag: 'Members',
    label: 'member',
    ...crud('member', 'members'),
    create: 'addMember',
    createSummary: 'Invite someone by e-mail to join as a member: answers an invitation, the same whether or not the address has an account',
  }),
  ...resource({
    base: `${BUSINESS}/invitations`,
    idParam: 'invitation',
    object: 'invitation',
    tag: 'Members',
    label: 'invitation',
    ...crud('invitation', 'invitations'),
    update: undefined,
  }),
  ...analyticsReports(),
  // Issue 52: the texts travel in the body (up to 100 of 2,000 characters), too long for a query string.
  {
    method: 'POST',
    path: `${BUSINESS}/text-analysis`,
    kind: 'compute',
    field: 'textAnalysis',
    params: { business: 'business' },
    object: 'textanalysis',
    status: 200,
    tag: 'Text analysis',
    summary: 'The language, sentiment, themes and menu dishes of each text, in order; nothing is stored',
  },
  {
    method: 'GET',
    path: `${BUSINESS}/theme-settings`,
    kind: 'get',
    field: 'themeSettings',
    params: { business: 'business' },
    object: 'themesettings',
    status: 200,
    tag: 'Text analysis',
    summary: "The business's own theme words, its own themes and the themes switched off",
  },
  {
    method: 'PATCH',
    path: `${BUSINESS}/theme-settings`,
    kind: 'update',
    field: 'updateThemeSettings',
    params: { business: 'business' },
    object: 'themesettings',
    status: 200,
    tag: 'Text analysis',
    summary: 'Change the theme settings: read at once, and the answers of the last 30 days read again in the background',
  },
  ...resource({
    base: `${BUSINESS}/alert-rules`,
    idParam: 'rule',
    object: 'alertrule',
    tag: 'Alerts and cases',
    label: 'alert rule',
    ...crud('alertRule', 'alertRules'),
  }),
  ...resource({
    base: `${BUSINESS}/cases`,
    idParam: 'case',
    object: 'case',
    tag: 'Alerts and cases',
    label: 'case',
    list: 'cases',
    get: 'case',
    update: 'updateCase',
  }),
  ...resource({
    base: `${BUSINESS}/cases/{case}/messages`,
    idParam: 'message',
    parents: ['case'],
    object: 'casemessage',
    tag: 'Alerts and cases',
    label: 'case message',
    list: 'caseMessages',
    get: 'caseMessage',
    create: 'createCaseMessage',
  }),
  ...resource({
    base: `${BUSINESS}/reply-templates`,
    idParam: 'template',
    object: 'replytemplate',
    tag: 'Alerts and cases',
    label: 'reply template',
    ...crud('replyTemplate', 'replyTemplates'),
  }),
  ...resource({
    base: `${BUSINESS}/cases/{case}/offers`,
    idParam: 'offer',
    parents: ['case'],
    object: 'offer',
    tag: 'Alerts and cases',
    label: 'offer',
    list: 'offers',
    get: 'offer',
    create: 'createOffer',
  }),
  {
    method: 'GET',
    path: '/v1/businesses/{business}/locations',
    kind: 'list',
    field: 'locations',
    params: { business: 'business' },
    object: 'location',
    status: 200,
    tag: 'Locations',
    summary: 'List locations (v1, deprecated: use /v2/businesses/{business}/locations)',
    deprecated: {
      // RFC 9745 structured date (2026-01-01T00:00:00Z) and RFC 8594 HTTP-date.
      deprecation: '@1767225600',
      sunset: 'Wed, 30 Jun 2027 23:59:59 GMT',
      successor: '/v2/businesses/{business}/locations',
    },
  },
  ...customIntegration(),
];

/** Koa-router path (`:param`) for an OpenAPI-style template (`{param}`). */
export const koaPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Methods of each path, for 405 answers' Allow header. */
export function allowedMethods(routes: RouteDef[] = ROUTES): Map<string, HttpMethod[]> {
  const byPath = new Map<string, HttpMethod[]>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? [];
    methods.push(route.method);
    byPath.set(route.path, methods);
  }
  return byPath;
}
