import { useEffect, useState } from 'preact/hooks';

/**
 * Addresses are the state: every screen, filter and page is a /portal URL that can be bookmarked and reloaded.
 * Links are plain <a href>; a click on one inside the portal is handled here without a reload.
 */
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

export function navigate(href: string, options: { replace?: boolean } = {}) {
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

export function installLinkHandler() {
  window.addEventListener('popstate', notify);
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element).closest?.('a');
    if (!link || link.target || link.hasAttribute('download')) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith('/portal') || url.pathname === '/portal/callback') return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return { path: location.pathname.replace(/\/+$/, '') || '/portal', query: new URLSearchParams(location.search) };
}

/** This address with some query parameters changed (empty values dropped; the page goes back to 0 unless given). */
export function withQuery(query: URLSearchParams, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(query);
  if (!('page' in changes)) next.delete('page');
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') next.delete(k);
    else next.set(k, v);
  }
  const qs = next.toString();
  return location.pathname + (qs ? `?${qs}` : '');
}
