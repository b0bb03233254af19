/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// What went wrong with what a person asked, announced to screen readers as it appears; nothing when all is well.

export function ErrorNote({ message }: { message?: string | null | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
