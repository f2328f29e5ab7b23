import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { startSession, signOut, switchBusiness, type Session } from './auth';
import { graphql, request } from './graphql';
import { installLinkHandler, useLocation } from './router';
import { Failure, Loading, message } from './ui';

/** The navigation: plain links, one per screen, in the order a manager's day goes. */
const NAV: { href: string; label: string }[] = [
  { href: '/portal', label: 'Overview' },
  { href: '/portal/surveys', label: 'Surveys' },
  { href: '/portal/feedback', label: 'Feedback' },
  { href: '/portal/orders', label: 'Orders' },
  { href: '/portal/integrations', label: 'Integrations' },
  { href: '/portal/webhooks', label: 'Webhooks' },
  { href: '/portal/credentials', label: 'API credentials' },
  { href: '/portal/flows', label: 'Feedback flows' },
  { href: '/portal/members', label: 'Members' },
];

export interface ScreenProps {
  session: Session;
  path: string;
  query: URLSearchParams;
  params: string[];
}
type Loader = () => Promise<{ default: ComponentType<ScreenProps> }>;

/** Each screen is its own chunk, loaded when first opened. */
const ROUTES: [RegExp, Loader, string][] = [
  [/^\/portal$/, () => import('./screens/placeholders').then((m) => ({ default: m.Overview })), 'Overview'],
  [/^\/portal\/surveys$/, () => import('./screens/surveys'), 'Surveys'],
  [/^\/portal\/surveys\/([^/]+)$/, () => import('./screens/survey-editor'), 'Surveys'],
  [/^\/portal\/feedback$/, () => import('./screens/feedback'), 'Feedback'],
  [/^\/portal\/feedback\/([^/]+)\/([^/]+)$/, () => import('./screens/feedback').then((m) => ({ default: m.FeedbackDetail })), 'Feedback'],
  [/^\/portal\/orders$/, () => import('./screens/orders'), 'Orders'],
  [/^\/portal\/orders\/([^/]+)$/, () => import('./screens/orders').then((m) => ({ default: m.OrderDetail })), 'Orders'],
  [/^\/portal\/integrations$/, () => import('./screens/integrations'), 'Integrations'],
  [/^\/portal\/webhooks$/, () => import('./screens/webhooks'), 'Webhooks'],
  [/^\/portal\/webhooks\/([^/]+)$/, () => import('./screens/webhooks').then((m) => ({ default: m.WebhookDetail })), 'Webhooks'],
  [/^\/portal\/credentials$/, () => import('./screens/credentials'), 'API credentials'],
  [/^\/portal\/flows$/, () => import('./screens/placeholders').then((m) => ({ default: m.Flows })), 'Feedback flows'],
  [/^\/portal\/members$/, () => import('./screens/placeholders').then((m) => ({ default: m.Members })), 'Members'],
];

const BusinessQuery = graphql(`
  query PortalBusiness($id: ID!) {
    business(id: $id) { id name }
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

function App({ session }: { session: Session }) {
  const { path, query } = useLocation();
  const [businessName, setBusinessName] = useState<string>();
  useEffect(() => {
    request(BusinessQuery, { id: session.business }).then((r) => setBusinessName(r.business.name), () => setBusinessName(session.business));
  }, [session.business]);
  const route = ROUTES.map(([pattern, loader, section]) => ({ match: pattern.exec(path), loader, section })).find((r) => r.match);
  const section = route?.section;
  useEffect(() => {
    document.title = `${section ?? 'Not found'} · ${businessName ?? 'Business portal'}`;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path, section, businessName]);
  return (
    <>
      <a class="skip" href="#main">Skip to the content</a>
      <header class="top">
        <span class="business" data-testid="business-name">{businessName ?? '…'}</span>
        <span class="account">
          <button type="button" class="link" onClick={() => void switchBusiness()}>Switch business</button>
          <button type="button" class="link" onClick={() => void signOut()}>Sign out</button>
        </span>
      </header>
      <div class="frame">
        <nav class="side" aria-label="Portal">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.label === section ? 'page' : undefined}>{item.label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          {route ? (
            <Screen loader={route.loader} props={{ session, path, query, params: route.match!.slice(1).map(decodeURIComponent) }} />
          ) : (
            <>
              <h1 tabIndex={-1}>Nothing here</h1>
              <p>This address is not a screen of the portal. <a href="/portal">Go to the overview</a>.</p>
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
        <p><a href="/portal">Try again</a></p>
      </main>,
      root,
    );
  }
}
void boot();
