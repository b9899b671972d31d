/** Templates: pick one, fill its variables (text, avatar look, voice, media asset), generate a video. */
import { useState } from 'preact/hooks';
import { getData, listAll, postData } from '../api.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { useResource } from '../components/use-resource.ts';
import { href, navigate } from '../router.ts';
import { loadLooks, loadVoices } from './create-video.tsx';

interface TemplateSummary {
  id: string;
  name: string;
}

interface Variable {
  name: string;
  type: string;
  required: boolean;
  default: string | null;
}

interface Template {
  name: string;
  variables: Record<string, Variable>;
}

interface Asset {
  id: string;
  name: string;
  type: string;
}

function VariableInput({
  variable,
  options,
  value,
  onChange,
}: {
  variable: Variable;
  options: { value: string; label: string }[] | null;
  value: string;
  onChange: (value: string) => void;
}) {
  const id = `variable-${variable.name}`;
  return (
    <div class="stack">
      <label for={id}>
        {variable.name}{' '}
        <span class="muted">
          ({variable.type}
          {variable.required ? ', required' : ''})
        </span>
      </label>
      {options ? (
        <select
          id={id}
          value={value}
          required={variable.required}
          onChange={(event) => onChange(event.currentTarget.value)}
        >
          <option value="">
            {variable.default ? `Default (${variable.default})` : 'Keep the template’s'}
          </option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          value={value}
          required={variable.required}
          placeholder={variable.default ?? ''}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      )}
    </div>
  );
}

/** The API's value for a variable: text as is; looks and voices by id; media as an asset input. */
function variableValue(variable: Variable, value: string): unknown {
  if (variable.type === 'character') return { avatar_id: value };
  if (variable.type === 'voice') return { voice_id: value };
  if (['image', 'video', 'audio'].includes(variable.type)) return { type: 'asset_id', asset_id: value };
  return value;
}

function GenerateForm({ templateId }: { templateId: string }) {
  const template = useResource(async () => {
    const [detail, looks, voices, assets] = await Promise.all([
      getData<Template>(`/v3/templates/${encodeURIComponent(templateId)}`),
      loadLooks(),
      loadVoices(),
      listAll<Asset>('/v3/assets?limit=100'),
    ]);
    return { detail, looks, voices, assets };
  }, [templateId]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [title, setTitle] = useState('');
  const [error, setError] = useState<unknown>(null);
  if (!template.data)
    return template.error ? <ErrorMessage error={template.error} /> : <Loading what="the template" />;
  const { detail, looks, voices, assets } = template.data;
  const optionsFor = (variable: Variable) => {
    if (variable.type === 'character') return looks.map((look) => ({ value: look.id, label: look.name }));
    if (variable.type === 'voice')
      return voices.map((voice) => ({ value: voice.voice_id, label: `${voice.name} — ${voice.language}` }));
    if (['image', 'video', 'audio'].includes(variable.type))
      return assets
        .filter((asset) => asset.type === variable.type)
        .map((asset) => ({ value: asset.id, label: asset.name }));
    return null;
  };

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      const variables = Object.fromEntries(
        Object.values(detail.variables)
          .filter((variable) => values[variable.name])
          .map((variable) => [variable.name, variableValue(variable, values[variable.name] ?? '')]),
      );
      const created = await postData<{ video_id: string }>(
        `/v3/templates/${encodeURIComponent(templateId)}`,
        {
          variables,
          ...(title.trim() ? { title: title.trim() } : {}),
        },
      );
      navigate(`videos/${created.video_id}`);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="stack panel" onSubmit={submit}>
      <h2>Generate from “{detail.name}”</h2>
      {Object.values(detail.variables).length === 0 && <p class="muted">This template has no variables.</p>}
      {Object.values(detail.variables).map((variable) => (
        <VariableInput
          key={variable.name}
          variable={variable}
          options={optionsFor(variable)}
          value={values[variable.name] ?? ''}
          onChange={(value) => setValues({ ...values, [variable.name]: value })}
        />
      ))}
      <label for="generate-title">Video title (optional)</label>
      <input id="generate-title" value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
      <ErrorMessage error={error} />
      <button type="submit" class="primary">
        Generate video
      </button>
    </form>
  );
}

export function TemplatesPage({ templateId }: { templateId?: string }) {
  const templates = useResource(() => listAll<TemplateSummary>('/v3/templates?limit=50', 100), []);
  return (
    <section aria-labelledby="templates-title">
      <h1 id="templates-title">Templates</h1>
      <ErrorMessage error={templates.error} />
      {!templates.data ? (
        <Loading what="templates" />
      ) : templates.data.length === 0 ? (
        <p class="muted">No templates yet. A template is made from a video with POST /v3/templates.</p>
      ) : (
        <ul aria-label="Templates">
          {templates.data.map((template) => (
            <li key={template.id}>
              <a
                href={href(`templates/${template.id}`)}
                aria-current={template.id === templateId ? 'page' : undefined}
              >
                {template.name}
              </a>
            </li>
          ))}
        </ul>
      )}
      {templateId && <GenerateForm key={templateId} templateId={templateId} />}
    </section>
  );
}
