/**
 * Sign-in. With an OAuth issuer configured, the recommended way is the issuer's own sign-in page.
 * An API key can always be pasted: the spec says keys belong server-side, so the page says so, once
 * per tab, before the key is used, and keeps the key in this tab's session storage only.
 */
import { useState } from 'preact/hooks';
import { ApiError, get } from '../api.ts';
import { ErrorMessage } from '../components/feedback.tsx';
import { keyWarningSeen, markKeyWarningSeen, signIn, signOut } from '../credential.ts';
import { startOAuthSignIn } from '../oauth.ts';
import { settings } from '../settings.ts';

export function KeyWarning({ onAccept }: { onAccept: () => void }) {
  return (
    <section
      class="warning"
      role="alertdialog"
      aria-labelledby="key-warning-title"
      aria-describedby="key-warning-text"
    >
      <h2 id="key-warning-title">API keys belong on servers</h2>
      <p id="key-warning-text">
        The API's documentation says keys must be kept server-side, never in browser code. A key pasted here
        is held only in this tab's session storage and sent only to this service, but any script running in
        this page could read it. Prefer a read-only or short-lived key, sign in with OAuth where the service
        offers it, and close the tab when you are done.
      </p>
      <button type="button" onClick={onAccept}>
        I understand
      </button>
    </section>
  );
}

export function SignInPage({ initialError }: { initialError?: unknown }) {
  const [key, setKey] = useState('');
  const [warningAccepted, setWarningAccepted] = useState(keyWarningSeen());
  const [error, setError] = useState<unknown>(initialError ?? null);
  const [busy, setBusy] = useState(false);
  const oauth = settings().oauth;

  async function submitKey(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    signIn({ kind: 'api_key', secret: key.trim() });
    try {
      // Checks the key before the console is shown: a wrong key says so here, not on every page.
      await get('/v3/api_keys/self');
    } catch (caught) {
      signOut();
      setError(
        caught instanceof ApiError && caught.status === 401
          ? new Error('The service did not accept this key: it is unknown, revoked or expired.')
          : caught,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in" id="main">
      <h1>Video Creation Service</h1>
      <p class="muted">Sign in to your workspace.</p>
      {oauth && (
        <section>
          <button type="button" class="primary" onClick={() => void startOAuthSignIn(oauth).catch(setError)}>
            Sign in with your organisation
          </button>
          <p class="muted">or use an API key:</p>
        </section>
      )}
      {!warningAccepted ? (
        <KeyWarning
          onAccept={() => {
            markKeyWarningSeen();
            setWarningAccepted(true);
          }}
        />
      ) : (
        <form onSubmit={submitKey} class="stack">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </form>
      )}
      <ErrorMessage error={error} />
    </main>
  );
}
