/** Entry: settings first, then the OAuth return (if any), then the console. */
import { render } from 'preact';
import { App } from './app.tsx';
import { completeOAuthSignIn } from './oauth.ts';
import { loadSettings } from './settings.ts';
import './styles.css';

async function start() {
  const settings = await loadSettings();
  let signInError: unknown = null;
  try {
    await completeOAuthSignIn(settings.oauth);
  } catch (error) {
    signInError = error;
  }
  const root = document.getElementById('app');
  if (!root) return;
  root.replaceChildren();
  render(<App signInError={signInError} />, root);
}

void start();
