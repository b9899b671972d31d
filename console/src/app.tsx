/** The console's frame: navigation, the signed-in workspace, and the page the hash names. */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getData } from './api.ts';
import { ErrorMessage, Loading } from './components/feedback.tsx';
import { credential, signOut } from './credential.ts';
import { AssetsPage } from './pages/assets.tsx';
import { AvatarsVoicesPage } from './pages/avatars-voices.tsx';
import { CreateVideoPage } from './pages/create-video.tsx';
import { JobsPage } from './pages/jobs.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { TemplatesPage } from './pages/templates.tsx';
import { VideoPage } from './pages/video-player.tsx';
import { VideosPage } from './pages/videos.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { href, location } from './router.ts';

/** The chart library is only needed on the usage page: it loads with that page, not with the console. */
function LazyUsagePage() {
  const [Page, setPage] = useState<FunctionComponent | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    import('./pages/usage.tsx').then((module) => setPage(() => module.UsagePage), setError);
  }, []);
  if (error) return <ErrorMessage error={error} />;
  return Page ? <Page /> : <Loading what="usage" />;
}

const NAVIGATION = [
  ['videos', 'Videos'],
  ['jobs', 'Jobs'],
  ['templates', 'Templates'],
  ['assets', 'Assets'],
  ['avatars', 'Avatars & voices'],
  ['webhooks', 'Webhooks'],
  ['usage', 'Usage'],
] as const;

function CurrentPage() {
  const { page, parameters } = location.value;
  const [first, second] = parameters;
  switch (page) {
    case 'videos':
      if (first === 'new') return <CreateVideoPage />;
      return first ? <VideoPage videoId={first} /> : <VideosPage />;
    case 'jobs':
      return <JobsPage section={first} videoId={second} />;
    case 'templates':
      return <TemplatesPage templateId={first} />;
    case 'assets':
      return <AssetsPage />;
    case 'avatars':
      return <AvatarsVoicesPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'usage':
      return <LazyUsagePage />;
    default:
      return <p>There is no page “{page}”.</p>;
  }
}

function Workspace() {
  const [name, setName] = useState<string>('');
  useEffect(() => {
    getData<{ workspace_name?: string }>('/v3/users/me').then(
      (me) => setName(me.workspace_name ?? ''),
      () => setName(''),
    );
  }, []);
  return name ? <span class="workspace">{name}</span> : null;
}

export function App({ signInError }: { signInError: unknown }) {
  if (!credential.value) return <SignInPage initialError={signInError} />;
  const current = location.value.page;
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <strong>Video console</strong>
        <Workspace />
        <button type="button" class="ghost" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console" class="side-nav">
        <ul>
          {NAVIGATION.map(([page, label]) => (
            <li key={page}>
              <a href={href(page)} aria-current={current === page ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <CurrentPage />
      </main>
    </div>
  );
}
