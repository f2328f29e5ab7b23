import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/auth.js';
import { GuestCase } from '../../src/modules/case/case.entity.js';
import { until } from '../helpers/until.js';
import { checkPortalScreen, portalLoaded } from '../helpers/browser.js';
import { OWNER_NAV, signInToPortal, usePortal, type Person } from '../helpers/portal.js';

/**
 * Issue 49, item 4: roles shown, not only enforced. A staff member walks every screen of the portal and is offered
 * no control their role cannot use: the screens they may not open are not in the navigation (and, reached by
 * address, say who can open them), and each screen they may read says who can change it. The same walk as the
 * owner finds those controls, so the check cannot pass by finding nothing.
 */
let server: TestServer;
let tenant: Tenant;
let staff: Person;
let survey: string;
let flow: string;
let caseId: string;

const { newPage, api } = usePortal({ business: 'Roles Cafe', staffDomain: 'roles-cafe.example', workers: true }, async (portal) => {
  ({ server, tenant, staff } = portal);

  // Something on every screen: a metric and a survey with a step, a location, a saved reply, a flow, the order
  // webhook connected, an alert rule and the case a low rating opens.
  const food = (await api(`mutation($b: ID!) { createMetric(business: $b, input: { name: "Food", scale: { min: 1, max: 5 } }) { id } }`)).createMetric.id;
  survey = (await api(`mutation($b: ID!) { createSurvey(business: $b, input: { name: "Dinner", status: active }) { id } }`)).createSurvey.id;
  const step = (
    await api(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
      s: survey,
      i: { type: 'metrics', content: { title: 'How was it?' }, metrics: { metrics: [food] } },
    })
  ).createSurveyStep.id;
  await api(`mutation($b: ID!) { createLocation(business: $b, input: { name: "Gulberg" }) { id } }`);
  await api(`mutation($b: ID!) { createReplyTemplate(business: $b, input: { name: "Sorry", body: "We are sorry." }) { id } }`);
  await api(`mutation($b: ID!) { connectCustomIntegration(business: $b) { secret } }`);
  flow = (
    await api(
      `mutation($b: ID!, $s: String!) { createFeedbackFlow(business: $b, input: { name: "After dinner", survey: $s, templates: { en: { subject: "How was it?", body: "Tell us: {{link}}" } } }) { id } }`,
      { s: survey },
    )
  ).createFeedbackFlow.id;
  await api(`mutation($b: ID!) { createAlertRule(business: $b, input: { name: "Low food", when: { maxRating: 2 }, notify: [{ role: "owner" }] }) { id } }`);
  await api(`mutation($b: ID!, $s: ID!, $i: CreateSubmissionInput!) { createSubmission(business: $b, survey: $s, input: $i) { id } }`, {
    s: survey,
    i: { answers: [{ step, ratings: { [food]: 1 } }] },
  });
  caseId = (await until(
    () => server.orm.em.fork().findOne(GuestCase, { business: tenant.businessId }),
    (c) => c !== null,
  ))!.id;
});

const signedIn = async (who: Person) => signInToPortal((await newPage()).page, server, who);

/** Words that begin a control which changes something (a filter, an export, a copy or a link builder does not). */
const CHANGES =
  /^(new|add|create|save|delete|edit|rotate|connect|invite|remove|revoke|reply|send|assign|resolve|reopen|mark|move|up$|down$|upload|turn|disable|enable|change|try it)/i;

/** The enabled buttons and links of the screen's content whose names say they change something. */
async function changeControls(page: Page): Promise<string[]> {
  await portalLoaded(page);
  const main = page.locator('main');
  const names = [
    ...(await main
      .getByRole('button')
      .filter({ visible: true })
      .evaluateAll((els) => els.filter((e) => !(e as HTMLButtonElement).disabled).map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''))),
    ...(await main.getByRole('link').filter({ visible: true }).allTextContents()),
    ...((await main.locator('input[type=file]').count()) ? ['Logo upload'] : []),
  ];
  return names.map((n) => n.trim()).filter((n) => CHANGES.test(n));
}

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Portal' }).getByRole('link').allTextContents();

/** Every screen in the navigation, then the detail pages a list leads to: what each offers that changes something. */
async function walk(page: Page): Promise<Record<string, string[]>> {
  const offered: Record<string, string[]> = {};
  for (const label of await navLinks(page)) {
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: label === 'Overview' ? undefined : label }).waitFor();
    offered[label] = await changeControls(page);
  }
  for (const [name, path] of [
    ['Survey editor', `/portal/surveys/${survey}`],
    ['Flow editor', `/portal/flows/${flow}`],
    ['Case', `/portal/cases/${caseId}`],
  ]) {
    await page.goto(`${server.url}${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    offered[name] = await changeControls(page);
  }
  return offered;
}

it('a staff member walks every screen and is offered nothing their role cannot do, told who can instead', async () => {
  const page = await signedIn(staff);
  // Screens staff may not open are not offered in the navigation at all.
  expect(await navLinks(page)).toEqual(OWNER_NAV.filter((screen) => !['Webhooks', 'API credentials', 'Members'].includes(screen)));

  const offered = await walk(page);
  expect(Object.entries(offered).filter(([, controls]) => controls.length)).toEqual([]);
  expect(Object.keys(offered)).toHaveLength(16);

  // Each screen with something to change says who changes it, in the words of the role table.
  const notes: [string, string][] = [
    ['/portal/surveys', 'Only owners and managers create and change surveys and metrics.'],
    [`/portal/surveys/${survey}`, 'Only owners and managers change a survey and its steps.'],
    ['/portal/surveys/new', 'Only owners and managers create surveys.'],
    ['/portal/integrations', 'Only owners and managers connect the webhook and rotate its secret.'],
    ['/portal/flows', 'Only owners and managers create and change feedback flows.'],
    [`/portal/flows/${flow}`, 'Only owners and managers change a feedback flow or try it on an order.'],
    [`/portal/cases/${caseId}`, 'Only owners and managers assign, answer and close cases.'],
    ['/portal/brand', 'Only owners and managers change the brand.'],
    ['/portal/locations', 'Only owners and managers add, change and delete locations.'],
    ['/portal/replies', 'Only owners and managers write, change and delete saved replies.'],
    ['/portal/alerts', 'Only owners and managers add, change, turn off and delete alert rules.'],
    ['/portal/themes/settings', 'Only owners and managers change the theme words.'],
  ];
  for (const [path, text] of notes) {
    await page.goto(`${server.url}${path}`);
    await page.getByRole('note').filter({ hasText: text }).waitFor();
  }
  // What staff can read of a survey is still there: its settings and steps, and its links to share.
  await page.goto(`${server.url}/portal/surveys/${survey}`);
  await page.getByText('1. How was it?').waitFor();
  await page.getByRole('button', { name: 'Build the link' }).click();
  await page.getByTestId('survey-link').waitFor();
  await checkPortalScreen(page, 'survey-as-staff');

  // A screen the role does not open, reached by its address, says who can open it.
  for (const [path, section] of [
    ['/portal/members', 'Members'],
    ['/portal/webhooks', 'Webhooks'],
    ['/portal/credentials', 'API credentials'],
  ]) {
    await page.goto(`${server.url}${path}`);
    await page
      .getByRole('note')
      .filter({ hasText: `Your role in this business does not open ${section}: only owners and managers can.` })
      .waitFor();
  }
  await checkPortalScreen(page, 'members-as-staff');
});

it('the owner, walking the same screens, is offered the controls the staff member was not', async () => {
  const page = await signedIn(tenant);
  expect(await navLinks(page)).toEqual(OWNER_NAV);
  const offered = await walk(page);
  for (const screen of [
    'Surveys',
    'Integrations',
    'Feedback flows',
    'Saved replies',
    'Alert rules',
    'Locations',
    'Brand',
    'Theme settings',
    'Survey editor',
    'Flow editor',
    'Case',
    'Members',
  ]) {
    expect({ screen, offers: offered[screen].length > 0 }).toEqual({ screen, offers: true });
  }
  expect(await page.getByRole('note').filter({ hasText: 'Only owners' }).count()).toBe(0);
});
