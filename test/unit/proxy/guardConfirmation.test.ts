import { describe, expect, it } from 'vitest';
import { guardedRequest } from '../../../src/main/proxy/guardConfirmation.js';

const DIGEST = '602d33dfdb1c2288dd7a37763f195716158f511cfcd633de232005c8eb6cb89c';

describe("what a guarded request sends, in the proxy's words", () => {
  it('keeps the digest, the query and the body preview the proxy sent', () => {
    const request = guardedRequest({
      verb: 'patch',
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/keep',
      query: 'fieldManager=kubectl-edit',
      queryTruncated: false,
      digest: DIGEST,
      body: {
        bytes: 27,
        mediaType: 'application/merge-patch+json',
        text: true,
        preview: '{"data":{"replicas":"3"}}',
        truncated: false,
      },
    });
    expect(request).toMatchObject({
      query: 'fieldManager=kubectl-edit',
      queryTruncated: false,
      digest: DIGEST,
      body: {
        bytes: 27,
        mediaType: 'application/merge-patch+json',
        text: true,
        preview: '{"data":{"replicas":"3"}}',
        truncated: false,
      },
    });
  });

  it('bounds what it shows: a long preview is cut and said to be, a digest that is none is dropped', () => {
    const request = guardedRequest({
      digest: 'not-a-digest',
      query: 'q'.repeat(5000),
      body: { bytes: 9000, mediaType: 'application/json', text: true, preview: 'x'.repeat(9000), truncated: false },
    });
    expect(request.digest).toBe('');
    expect(request.query).toHaveLength(1024);
    expect(request.queryTruncated).toBe(true);
    expect(request.body.preview).toHaveLength(2048);
    expect(request.body.truncated).toBe(true);
  });

  it('a compressed or non-text body shows no text, whatever came with it', () => {
    const gzip = guardedRequest({
      body: { bytes: 40, mediaType: 'application/json', encoding: 'gzip', text: true, preview: 'looks fine' },
    });
    expect(gzip.body).toEqual({
      bytes: 40,
      mediaType: 'application/json',
      encoding: 'gzip',
      text: false,
      preview: '',
      truncated: false,
    });
    const binary = guardedRequest({ body: { bytes: -1, text: 'yes', preview: 'x' } });
    expect(binary.body).toEqual({ bytes: 0, mediaType: '', text: false, preview: '', truncated: false });
  });

  it('a proxy that sent nothing of the body gives an empty one', () => {
    expect(guardedRequest({ verb: 'delete' })).toMatchObject({
      query: '',
      queryTruncated: false,
      digest: '',
      body: { bytes: 0, mediaType: '', text: false, preview: '', truncated: false },
    });
  });
});
