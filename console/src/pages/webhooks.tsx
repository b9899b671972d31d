/**
 * Webhooks: endpoints (create, rotate the secret, delete), with the secret revealed once, and the
 * delivery log: each event's deliveries with every attempt and the receiver's answer, and a button
 * to deliver an event to an endpoint again.
 */
import { useState } from 'preact/hooks';
import { del, getData, listAll, postData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { isRunning, StatusBadge } from '../components/status.tsx';
import { useResource } from '../components/use-resource.ts';

interface Endpoint {
  endpoint_id: string;
  url: string;
  events: string[] | null;
  status: string;
  created_at: string;
  secret: string | null;
}

interface EventType {
  event_type: string;
  description: string;
}

interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  url: string;
  status_code: number | null;
  error: string | null;
  next_attempt_at: string | null;
}

interface Delivery {
  delivery_id: string;
  target: string;
  endpoint_id: string | null;
  callback_url: string | null;
  trigger: string;
  status: string;
  attempt_count: number;
  created_at: string;
  attempts: Attempt[];
}

interface WebhookEvent {
  event_id: string;
  event_type: string;
  entity_id: string;
  created_at: string;
}

interface RevealedSecret {
  endpointUrl: string;
  value: string;
}

const time = (iso: string) => new Date(iso).toLocaleString();

/** A secret is shown once, right after create or rotate: the API never returns it again. */
function SecretReveal({ secret, onDismiss }: { secret: RevealedSecret | null; onDismiss: () => void }) {
  if (!secret) return null;
  return (
    <div class="notice stack" role="status">
      <strong>Signing secret of {secret.endpointUrl}</strong>
      <span>Copy it now: it is shown only this once.</span>
      <code class="secret" data-secret>
        {secret.value}
      </code>
      <div class="row">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(secret.value)}>
          Copy secret
        </button>
        <button type="button" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

function CreateEndpoint({
  eventTypes,
  onCreated,
}: {
  eventTypes: EventType[];
  onCreated: (endpoint: Endpoint) => void;
}) {
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      const endpoint = await postData<Endpoint>('/v3/webhooks/endpoints', {
        url,
        ...(chosen.length > 0 ? { events: chosen } : {}),
      });
      setUrl('');
      setChosen([]);
      onCreated(endpoint);
    } catch (caught) {
      setError(caught);
    }
  }
  return (
    <form class="stack" onSubmit={submit}>
      <label for="endpoint-url">Endpoint URL</label>
      <input
        id="endpoint-url"
        type="url"
        required
        placeholder="https://example.com/webhooks"
        value={url}
        onInput={(event) => setUrl(event.currentTarget.value)}
      />
      <details>
        <summary>Only some events (default: every event)</summary>
        <fieldset class="event-types">
          <legend>Events (none chosen: all events)</legend>
          {eventTypes.map((type) => (
            <div class="row" key={type.event_type}>
              <input
                id={`event-${type.event_type}`}
                type="checkbox"
                checked={chosen.includes(type.event_type)}
                onChange={(event) =>
                  setChosen(
                    event.currentTarget.checked
                      ? [...chosen, type.event_type]
                      : chosen.filter((name) => name !== type.event_type),
                  )
                }
              />
              <label for={`event-${type.event_type}`}>{type.event_type}</label>
            </div>
          ))}
        </fieldset>
      </details>
      <ErrorMessage error={error} />
      <button type="submit" class="primary">
        Add endpoint
      </button>
    </form>
  );
}

function AttemptTable({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label="Attempts">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Sent</th>
            <th scope="col">Response</th>
            <th scope="col">Took</th>
            <th scope="col">Error</th>
            <th scope="col">Next attempt</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr key={attempt.attempt} data-attempt>
              <td>{attempt.attempt}</td>
              <td>
                {time(attempt.started_at)}
                <br />
                <span class="muted">{attempt.url}</span>
              </td>
              <td>{attempt.status_code ?? 'no answer'}</td>
              <td>{attempt.duration_ms} ms</td>
              <td>{attempt.error ?? '—'}</td>
              <td>{attempt.next_attempt_at ? time(attempt.next_attempt_at) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryPanel({ delivery }: { delivery: Delivery }) {
  const target =
    delivery.target === 'callback' ? `Callback to ${delivery.callback_url}` : 'Endpoint delivery';
  return (
    <div class="panel" data-delivery-id={delivery.delivery_id}>
      <div class="row">
        <StatusBadge status={delivery.status} />
        <span>
          {target} · {delivery.trigger} · {delivery.attempt_count} attempt(s)
        </span>
      </div>
      <AttemptTable attempts={delivery.attempts} />
    </div>
  );
}

function EventDeliveries({ event }: { event: WebhookEvent }) {
  const detail = useResource(
    () => getData<{ deliveries: Delivery[] }>(`/v3/webhooks/events/${encodeURIComponent(event.event_id)}`),
    [event.event_id],
    (current) => current.deliveries.some((delivery) => isRunning(delivery.status)),
  );
  const [error, setError] = useState<unknown>(null);
  async function redeliver(endpointId: string) {
    setError(null);
    try {
      await postData(`/v3/webhooks/events/${encodeURIComponent(event.event_id)}/redeliver`, {
        endpoint_id: endpointId,
      });
      await detail.reload();
    } catch (caught) {
      setError(caught);
    }
  }
  if (!detail.data)
    return detail.error ? <ErrorMessage error={detail.error} /> : <Loading what="deliveries" />;
  const endpointIds = [
    ...new Set(
      detail.data.deliveries.flatMap((delivery) => (delivery.endpoint_id ? [delivery.endpoint_id] : [])),
    ),
  ];
  return (
    <div class="stack deliveries">
      <ErrorMessage error={error} />
      {detail.data.deliveries.length === 0 && (
        <p class="muted">No deliveries: no endpoint listens to this event.</p>
      )}
      {detail.data.deliveries.map((delivery) => (
        <DeliveryPanel key={delivery.delivery_id} delivery={delivery} />
      ))}
      {endpointIds.map((endpointId) => (
        <button key={endpointId} type="button" onClick={() => void redeliver(endpointId)}>
          Redeliver to endpoint {endpointId.slice(-6)}
        </button>
      ))}
    </div>
  );
}

function DeliveryLog() {
  const events = useResource(() => listAll<WebhookEvent>('/v3/webhooks/events?limit=20', 20), []);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section aria-labelledby="log-title">
      <div class="row page-header">
        <h2 id="log-title">Delivery log</h2>
        <button type="button" onClick={() => void events.reload()}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={events.error} />
      {!events.data ? (
        <Loading what="events" />
      ) : events.data.length === 0 ? (
        <p class="muted">No events yet.</p>
      ) : (
        <ul class="stack" aria-label="Events">
          {events.data.map((event) => (
            <li key={event.event_id} data-event-id={event.event_id}>
              <button
                type="button"
                aria-expanded={open === event.event_id}
                onClick={() => setOpen(open === event.event_id ? null : event.event_id)}
              >
                {event.event_type} · {event.entity_id.slice(-6)} · {time(event.created_at)}
              </button>
              {open === event.event_id && <EventDeliveries event={event} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function EndpointTable({
  endpoints,
  onRotate,
  onDelete,
}: {
  endpoints: Endpoint[];
  onRotate: (endpoint: Endpoint) => void;
  onDelete: (endpoint: Endpoint) => void;
}) {
  if (endpoints.length === 0) return <p class="muted">No endpoints yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label="Endpoints">
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.endpoint_id} data-endpoint-id={endpoint.endpoint_id}>
              <td>{endpoint.url}</td>
              <td>{endpoint.events?.join(', ') ?? 'all'}</td>
              <td>
                <StatusBadge status={endpoint.status} />
              </td>
              <td class="row">
                <button type="button" onClick={() => onRotate(endpoint)}>
                  Rotate secret
                </button>
                <button type="button" class="danger" onClick={() => onDelete(endpoint)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function WebhooksPage() {
  const endpoints = useResource(() => listAll<Endpoint>('/v3/webhooks/endpoints?limit=100'), []);
  const eventTypes = useResource(() => listAll<EventType>('/v3/webhooks/event-types?limit=100'), []);
  const [secret, setSecret] = useState<RevealedSecret | null>(null);
  const [error, setError] = useState<unknown>(null);
  const path = (endpoint: Endpoint) => `/v3/webhooks/endpoints/${encodeURIComponent(endpoint.endpoint_id)}`;

  async function act(work: () => Promise<void>) {
    setError(null);
    try {
      await work();
      await endpoints.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <SecretReveal secret={secret} onDismiss={() => setSecret(null)} />
      <ErrorMessage error={error ?? endpoints.error} />
      <div class="panel">
        <h2>Endpoints</h2>
        {endpoints.data ? (
          <EndpointTable
            endpoints={endpoints.data}
            onRotate={(endpoint) =>
              void act(async () => {
                const rotated = await postData<Endpoint>(`${path(endpoint)}/rotate-secret`);
                if (rotated.secret) setSecret({ endpointUrl: endpoint.url, value: rotated.secret });
              })
            }
            onDelete={(endpoint) =>
              void act(async () => {
                await del(path(endpoint));
              })
            }
          />
        ) : (
          <Loading what="endpoints" />
        )}
        <h3>Add an endpoint</h3>
        <CreateEndpoint
          eventTypes={eventTypes.data ?? []}
          onCreated={(endpoint) => {
            if (endpoint.secret) setSecret({ endpointUrl: endpoint.url, value: endpoint.secret });
            void endpoints.reload();
          }}
        />
      </div>
      <DeliveryLog />
    </section>
  );
}
