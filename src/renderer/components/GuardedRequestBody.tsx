import type { GuardedRequestView } from '../../shared/api/prompts.js';
import { bodyKind, bodyNotShown, bodyTitle, laidOutBody, sizeWords } from '../requestBodyWords.js';

/**
 * What a guarded request sends, in its confirm prompt: the request line (method, path, query)
 * and the body, for a PATCH the patch itself, so the person allows the change they read and not
 * only its one-line description. A body that is cut or cannot be shown says so.
 */
export function GuardedRequestBody({ request }: { request: GuardedRequestView }) {
  const { body } = request;
  const notShown = bodyNotShown(body);
  const line = `${request.method} ${request.path}${request.query ? `?${request.query}` : ''}${request.queryTruncated ? ' …' : ''}`;
  return (
    <div className="prompt-request">
      <code className="prompt-request-line">{line}</code>
      {body.bytes === 0 ? (
        <p className="hint">It sends no body.</p>
      ) : (
        <figure className="prompt-body">
          <figcaption>
            <strong>{bodyTitle(request.method)}</strong>{' '}
            <span className="hint">
              {bodyKind(body.mediaType)}, {sizeWords(body.bytes)}
            </span>
          </figcaption>
          {body.text ? (
            // Focusable: a long body scrolls, and the keyboard must reach all of it.
            <pre tabIndex={0} aria-label={bodyTitle(request.method).toLowerCase()}>
              <code>{laidOutBody(body.preview)}</code>
              {body.truncated ? <span className="prompt-body-cut">{'\n'}… (cut here)</span> : null}
            </pre>
          ) : null}
          {notShown ? <p className={`prompt-callout${body.text ? '' : ' danger'}`}>{notShown}</p> : null}
        </figure>
      )}
    </div>
  );
}
