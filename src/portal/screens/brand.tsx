import { useEffect, useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { accessToken } from '../auth';
import { ApiError, graphql, request } from '../graphql';
import { may, ReadOnlyNote } from '../roles';
import { CardForm, Field, FormError, Loaded, useLoad, useSubmit } from '../ui';

const BrandScreen = graphql(`
  query BrandScreen($id: ID!) {
    businessProfile(business: $id) { id name displayName brandColor logoUrl reviewUrl replyTo }
  }
`);

const SaveBrand = graphql(`
  mutation SaveBrand($id: ID!, $input: UpdateBusinessInput!) {
    updateBusiness(id: $id, input: $input) { id displayName brandColor reviewUrl replyTo }
  }
`);

const DEFAULT_COLOR = '#1D4ED8';

/** WCAG 2.x contrast of white text on `hex` (#RRGGBB), as the service checks it; null for anything else. */
export function whiteContrast(hex: string): number | null {
  if (!/^#[0-9a-fA-F]{6}$/.test(hex)) return null;
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 1.05 / (0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5) + 0.05);
}

interface Draft {
  displayName: string;
  brandColor: string;
  reviewUrl: string;
  replyTo: string;
}

/** PUT /v2/businesses/{business}/logo with the file's bytes: the service decodes it and answers its address. */
async function uploadLogo(business: string, file: File): Promise<string> {
  const res = await fetch(`/v2/businesses/${encodeURIComponent(business)}/logo`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await accessToken()}`, 'content-type': file.type || 'application/octet-stream' },
    body: file,
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok)
    throw new ApiError(body?.error?.message ?? `The logo was refused (${res.status})`, body?.error?.code ?? 'bad_request', body?.error?.details ?? []);
  return body.data.logoUrl as string;
}

/** The business's face to guests: name, colour, logo, review link, Reply-To, with the guest page and e-mail as they will look. */
export default function Brand({ session }: ScreenProps) {
  const state = useLoad(() => request(BrandScreen, { id: session.business }), session.business);
  return (
    <>
      <h1 tabIndex={-1}>Brand</h1>
      <p>
        What your guests see: the name and logo at the top of every survey page and feedback e-mail, your colour on their buttons, and where you invite them to
        review you.
      </p>
      <Loaded state={state} what="the brand">
        {(data) => <BrandForm business={data.businessProfile} canWrite={may(session, 'business:write')} reload={state.reload} />}
      </Loaded>
    </>
  );
}

type Business = {
  id: string;
  name: string;
  displayName: string;
  brandColor: string | null;
  logoUrl: string | null;
  reviewUrl: string | null;
  replyTo: string | null;
};

function BrandForm({ business, canWrite, reload }: { business: Business; canWrite: boolean; reload: () => void }) {
  const [draft, setDraft] = useState<Draft>({
    displayName: business.displayName === business.name ? '' : business.displayName,
    brandColor: business.brandColor ?? DEFAULT_COLOR,
    reviewUrl: business.reviewUrl ?? '',
    replyTo: business.replyTo ?? '',
  });
  const [logoUrl, setLogoUrl] = useState(business.logoUrl);
  const [saved, setSaved] = useState(false);
  const submit = useSubmit();
  const logo = useSubmit();
  useEffect(() => setSaved(false), [draft]);
  const set = (field: keyof Draft) => (e: Event) => setDraft({ ...draft, [field]: (e.currentTarget as HTMLInputElement).value });
  const contrast = whiteContrast(draft.brandColor);
  const colourOk = contrast !== null && contrast >= 4.5;
  const shownName = draft.displayName.trim() || business.name;

  const save = async () => {
    const input = {
      displayName: draft.displayName.trim() || null,
      brandColor: draft.brandColor.toUpperCase() === DEFAULT_COLOR && !business.brandColor ? null : draft.brandColor,
      reviewUrl: draft.reviewUrl.trim() || null,
      replyTo: draft.replyTo.trim() || null,
    };
    if (await submit.run(() => request(SaveBrand, { id: business.id, input }))) {
      setSaved(true);
      reload();
    }
  };
  const pick = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (!file) return;
    const url = await logo.run(() => uploadLogo(business.id, file));
    if (url) setLogoUrl(url);
  };

  return (
    <div class="brand-screen">
      {!canWrite && <ReadOnlyNote scope="business:write">change the brand. You can see it here.</ReadOnlyNote>}
      <CardForm label="Brand" onSubmit={save}>
        <fieldset disabled={!canWrite || submit.busy}>
          <legend class="visually-hidden">Brand</legend>
          <Field label="Name shown to guests" hint={`At most 80 characters. Empty: “${business.name}”.`} error={submit.fields.displayName}>
            {(id, d) => <input id={id} aria-describedby={d} maxLength={80} value={draft.displayName} onInput={set('displayName')} />}
          </Field>
          <Field
            label="Brand colour"
            hint="Buttons and focus rings: white text on it must reach a contrast of 4.5:1 (WCAG AA)."
            error={submit.fields.brandColor}
          >
            {(id, d) => (
              <span class="color-pick">
                <input
                  id={id}
                  type="color"
                  aria-describedby={d}
                  value={/^#[0-9a-fA-F]{6}$/.test(draft.brandColor) ? draft.brandColor : DEFAULT_COLOR}
                  onInput={set('brandColor')}
                />{' '}
                <input aria-label="Brand colour as #RRGGBB" value={draft.brandColor} size={8} onInput={set('brandColor')} />
              </span>
            )}
          </Field>
          <p role="status" data-testid="contrast" class={colourOk ? 'muted' : 'field-error'}>
            {contrast === null
              ? 'Write the colour as #RRGGBB.'
              : `White text on ${draft.brandColor.toUpperCase()}: ${contrast.toFixed(2)}:1 — ${colourOk ? 'readable (AA)' : 'too light: choose a darker colour'}`}
          </p>
          <Field label="Review link (https)" hint="Shown on the thank-you page to every guest." error={submit.fields.reviewUrl}>
            {(id, d) => <input id={id} type="url" aria-describedby={d} value={draft.reviewUrl} onInput={set('reviewUrl')} placeholder="https://" />}
          </Field>
          <Field label="Reply-To address" hint="Where a guest's answer to a feedback e-mail goes." error={submit.fields.replyTo}>
            {(id, d) => <input id={id} type="email" aria-describedby={d} value={draft.replyTo} onInput={set('replyTo')} />}
          </Field>
          <FormError error={submit.error} shown={['displayName', 'brandColor', 'reviewUrl', 'replyTo']} />
          {canWrite && (
            <button type="submit" disabled={!colourOk}>
              Save
            </button>
          )}
          {saved && <p role="status">Saved: guests see it from now on.</p>}
        </fieldset>
      </CardForm>
      {canWrite && (
        <div class="card">
          <Field label="Logo" hint="PNG, JPEG or WebP, at most 512 KB (no SVG)." error={logo.error ? (logo.error as Error).message : undefined}>
            {(id, d) => <input id={id} type="file" accept="image/png,image/jpeg,image/webp" aria-describedby={d} disabled={logo.busy} onChange={pick} />}
          </Field>
          {logo.busy && <p role="status">Checking the image…</p>}
        </div>
      )}
      <h2>Preview</h2>
      <Preview name={shownName} color={colourOk ? draft.brandColor : DEFAULT_COLOR} logoUrl={logoUrl} />
    </div>
  );
}

/** The survey page's header and button, and the e-mail, drawn with the same colour, name and logo (styles set through the DOM: the portal's policy allows no inline style text). */
function Preview({ name, color, logoUrl }: { name: string; color: string; logoUrl: string | null }) {
  const logoSrc = logoUrl ? new URL(logoUrl).pathname : null;
  const frame = { border: '1px solid #d1d5db', borderRadius: '12px', padding: '16px', background: '#fff', maxWidth: '24rem', margin: '0 0 1rem' };
  const header = { display: 'flex', alignItems: 'center', gap: '.7rem', fontWeight: '700', fontSize: '1.1rem', color: '#111827' };
  const button = { background: color, color: '#fff', border: '0', borderRadius: '10px', padding: '.8rem 1.4rem', fontWeight: '600', font: 'inherit' };
  return (
    <div class="brand-preview">
      <figure style={frame} data-testid="preview-page">
        <figcaption class="muted">Survey page</figcaption>
        <div style={header}>
          {logoSrc && <img src={logoSrc} alt="" width={40} height={40} style={{ objectFit: 'contain' }} />}
          <span>{name}</span>
        </div>
        <p>How likely are you to recommend us to a friend?</p>
        <span role="presentation" style={{ ...button, display: 'inline-block' }}>
          Next
        </span>
      </figure>
      <figure style={frame} data-testid="preview-email">
        <figcaption class="muted">Feedback e-mail</figcaption>
        <p>
          <strong>From:</strong> “{name}”<br />
          <strong>Subject:</strong> How was your order at {name}?
        </p>
        {logoSrc && <img src={logoSrc} alt="" height={48} />}
        <p style={{ fontWeight: '700', fontSize: '1.2rem', margin: '0' }}>{name}</p>
        <p>Hi Ada, thank you for your order A-1001. Tell us how it went (one minute): …</p>
        <span role="presentation" style={{ ...button, display: 'inline-block', fontSize: '1.1rem' }}>
          Give feedback
        </span>
      </figure>
    </div>
  );
}
