export function TemplatesPage(_props: { templateId?: string }) {
  return <h1>TemplatesPage</h1>;
}
