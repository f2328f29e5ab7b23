import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import type { Scope } from '../auth/scopes';
import { startSession, signOut, switchBusiness, type Session } from './auth';
import { graphql, request } from './graphql';
import { installLinkHandler, useLocation } from './router';
import type { ScreenProps } from './screen';
import { may, whoMay } from './roles';
import { Failure, Loading, message, setTimeZone } from './ui';

/** The navigation: plain links, one per screen, in the order a manager's day goes. */
const NAV: { href: string; label: string }[] = [
  { href: '/portal', label: 'Overview' },
  { href: '/portal/cases', label: 'Inbox' },
  { href: '/portal/surveys', label: 'Surveys' },
  { href: '/portal/feedback', label: 'Feedback' },
  { href: '/portal/themes', label: 'Themes' },
  { href: '/portal/orders', label: 'Orders' },
  { href: '/portal/integrations', label: 'Integrations' },
  { href: '/portal/webhooks', label: 'Webhooks' },
  { href: '/portal/credentials', label: 'API credentials' },
  { href: '/portal/flows', label: 'Feedback flows' },
  { href: '/portal/replies', label: 'Saved replies' },
  { href: '/portal/alerts', label: 'Alert rules' },
  { href: '/portal/locations', label: 'Locations' },
  { href: '/portal/members', label: 'Members' },
  { href: '/portal/brand', label: 'Brand' },
  { href: '/portal/themes/settings', label: 'Theme settings' },
];

type Loader = () => Promise<{ default: ComponentType<ScreenProps> }>;

/**
 * Each screen is its own chunk, loaded when first opened, and needs one read scope: a role without it sees what the
 * screen is for and who may open it, not an error.
 */
const ROUTES: [RegExp, Loader, string, Scope][] = [
  [/^\/portal$/, () => import('./screens/overview'), 'Overview', 'analytics:read'],
  [/^\/portal\/cases$/, () => import('./screens/inbox'), 'Inbox', 'cases:read'],
  [/^\/portal\/cases\/([^/]+)$/, () => import('./screens/inbox').then((m) => ({ default: m.CaseDetail })), 'Inbox', 'cases:read'],
  [/^\/portal\/surveys$/, () => import('./screens/surveys'), 'Surveys', 'surveys:read'],
  [/^\/portal\/surveys\/([^/]+)$/, () => import('./screens/survey-editor'), 'Surveys', 'surveys:read'],
  [/^\/portal\/feedback$/, () => import('./screens/feedback'), 'Feedback', 'submissions:read'],
  [/^\/portal\/feedback\/([^/]+)\/([^/]+)$/, () => import('./screens/feedback').then((m) => ({ default: m.FeedbackDetail })), 'Feedback', 'submissions:read'],
  [/^\/portal\/themes$/, () => import('./screens/themes'), 'Themes', 'submissions:read'],
  [/^\/portal\/themes\/settings$/, () => import('./screens/theme-settings'), 'Theme settings', 'business:read'],
  [/^\/portal\/orders$/, () => import('./screens/orders'), 'Orders', 'orders:read'],
  [/^\/portal\/orders\/([^/]+)$/, () => import('./screens/orders').then((m) => ({ default: m.OrderDetail })), 'Orders', 'orders:read'],
  [/^\/portal\/integrations$/, () => import('./screens/integrations'), 'Integrations', 'orders:read'],
  [/^\/portal\/webhooks$/, () => import('./screens/webhooks'), 'Webhooks', 'webhooks:read'],
  [/^\/portal\/webhooks\/([^/]+)$/, () => import('./screens/webhooks').then((m) => ({ default: m.WebhookDetail })), 'Webhooks', 'webhooks:read'],
  [/^\/portal\/credentials$/, () => import('./screens/credentials'), 'API credentials', 'credentials:read'],
  [/^\/portal\/flows$/, () => import('./screens/flows'), 'Feedback flows', 'flows:read'],
  [/^\/portal\/flows\/([^/]+)$/, () => import('./screens/flows').then((m) => ({ default: m.FlowEditor })), 'Feedback flows', 'flows:read'],
  [/^\/portal\/replies$/, () => import('./screens/replies'), 'Saved replies', 'cases:read'],
  [/^\/portal\/alerts$/, () => import('./screens/alerts'), 'Alert rules', 'alerts:read'],
  [/^\/portal\/locations$/, () => import('./screens/locations'), 'Locations', 'locations:read'],
  [/^\/portal\/members$/, () => import('./screens/members'), 'Members', 'members:read'],
  [/^\/portal\/brand$/, () => import('./screens/brand'), 'Brand', 'business:read'],
];

/** The scope a screen needs to be opened: the navigation lists only the screens the member's role opens. */
const scopeOf = (href: string) => ROUTES.find(([pattern]) => pattern.test(href))![3];

const BusinessQuery = graphql(`
  query PortalBusiness($id: ID!) {
    business(id: $id) { id name timeZone country }
  }
`);

function Screen({ loader, props }: { loader: Loader; props: ScreenProps }) {
  const [loaded, setLoaded] = useState<{ loader: Loader; component: ComponentType<ScreenProps> } | { error: unknown }>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    loader().then(
      (m) => live && setLoaded({ loader, component: m.default }),
      (error) => live && setLoaded({ error }),
    );
    return () => void (live = false);
  }, [loader, attempt]);
  if (loaded && 'error' in loaded) return <Failure error={loaded.error} retry={() => setAttempt((n) => n + 1)} />;
  if (!loaded || loaded.loader !== loader) return <Loading what="the screen" />;
  const Component = loaded.component;
  return <Component {...props} />;
}

/** A screen the member's role may not open: what it is for, and who can. */
function NotForRole({ section, scope }: { section: string; scope: Scope }) {
  return (
    <>
      <h1 tabIndex={-1}>{section}</h1>
      <div class="empty" role="note">
        <p>
          Your role in this business does not open {section}: only {whoMay(scope)} can. An owner can change your role under Members.
        </p>
      </div>
    </>
  );
}

function App({ session }: { session: Session }) {
  const { path, query } = useLocation();
  const [businessName, setBusinessName] = useState<string>();
  // Screens wait for the business's time zone: every date they show and every date filter is read in it.
  const [zoneKnown, setZoneKnown] = useState(false);
  useEffect(() => {
    request(BusinessQuery, { id: session.business }).then(
      (r) => {
        setTimeZone(r.business.timeZone, r.business.country);
        setBusinessName(r.business.name);
        setZoneKnown(true);
      },
      () => {
        setBusinessName(session.business);
        setZoneKnown(true);
      },
    );
  }, [session.business]);
  const route = ROUTES.map(([pattern, loader, section, scope]) => ({ match: pattern.exec(path), loader, section, scope })).find((r) => r.match);
  const section = route?.section;
  useEffect(() => {
    document.title = `${section ?? 'Not found'} · ${businessName ?? 'Business portal'}`;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path, section, businessName]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <span class="business" data-testid="business-name">
          {businessName ?? '…'}
        </span>
        <span class="account">
          <button type="button" class="link" onClick={() => void switchBusiness()}>
            Switch business
          </button>
          <button type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <div class="frame">
        <nav class="side" aria-label="Portal">
          <ul>
            {NAV.filter((item) => may(session, scopeOf(item.href))).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.label === section ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          {!zoneKnown ? (
            <Loading what="the business" />
          ) : route && !may(session, route.scope) ? (
            <NotForRole section={route.section} scope={route.scope} />
          ) : route ? (
            <Screen loader={route.loader} props={{ session, path, query, params: route.match!.slice(1).map(decodeURIComponent) }} />
          ) : (
            <>
              <h1 tabIndex={-1}>Nothing here</h1>
              <p>
                This address is not a screen of the portal. <a href="/portal">Go to the overview</a>.
              </p>
            </>
          )}
        </main>
      </div>
    </>
  );
}

async function boot() {
  const root = document.getElementById('app')!;
  try {
    const { session, path } = await startSession();
    history.replaceState(null, '', path);
    installLinkHandler();
    root.textContent = '';
    render(<App session={session} />, root);
  } catch (error) {
    root.textContent = '';
    render(
      <main id="main" class="solo">
        <h1>The portal could not start</h1>
        <p role="alert">{message(error)}</p>
        <p>
          <a href="/portal">Try again</a>
        </p>
      </main>,
      root,
    );
  }
}
void boot();
