import { describe, expect, it } from 'vitest';
import { bodyKind, bodyNotShown, bodyTitle, laidOutBody, sizeWords } from '../../../src/renderer/requestBodyWords.js';

const body = (change: Partial<Parameters<typeof bodyNotShown>[0]> = {}) => ({
  bytes: 26,
  mediaType: 'application/merge-patch+json',
  text: true,
  preview: '{"data":{"replicas":"3"}}',
  truncated: false,
  ...change,
});

describe("a guarded request's body in its prompt", () => {
  it('lays out compact JSON one value a line, keeping every key as sent', () => {
    expect(laidOutBody('{"data":{"image":"ok","image":"evil"},"list":[1,{}],"e":[]}')).toBe(
      '{\n  "data": {\n    "image": "ok",\n    "image": "evil"\n  },\n  "list": [\n    1,\n    {}\n  ],\n  "e": []\n}',
    );
  });

  it('leaves the inside of strings alone, escaped quotes included', () => {
    expect(laidOutBody('{"a":"x,{y}:\\"z\\"","b":"\\\\"}')).toBe('{\n  "a": "x,{y}:\\"z\\"",\n  "b": "\\\\"\n}');
  });

  it('lays out a preview cut in the middle; YAML and text stay as they are', () => {
    expect(laidOutBody('{"data":{"blob":"abc')).toBe('{\n  "data": {\n    "blob": "abc');
    expect(laidOutBody('data:\n  image: nginx\n')).toBe('data:\n  image: nginx\n');
    expect(laidOutBody('plain')).toBe('plain');
  });

  it('names the kind of write and its size; a PATCH body is the patch', () => {
    expect(bodyKind('application/strategic-merge-patch+json')).toBe('strategic merge patch');
    expect(bodyKind('application/json-patch+json')).toBe('JSON patch');
    expect(bodyKind('text/x-odd')).toBe('text/x-odd');
    expect(bodyKind('')).toBe('no media type given');
    expect(bodyTitle('PATCH')).toBe('Patch sent');
    expect(bodyTitle('PUT')).toBe('Body sent');
    expect([1, 26, 5427, 3 * 1024 * 1024].map(sizeWords)).toEqual(['1 byte', '26 bytes', '5.3 KiB', '3.0 MiB']);
  });

  it('says when the body is not all on screen, and why', () => {
    expect(bodyNotShown(body())).toBeUndefined();
    expect(bodyNotShown(body({ truncated: true, bytes: 5427 }))).toBe(
      'Only the start of the body is shown; it is 5.3 KiB in all. Allow only if you know what the rest does.',
    );
    expect(
      bodyNotShown(body({ text: false, preview: '', mediaType: 'application/vnd.kubernetes.protobuf', bytes: 312 })),
    ).toBe('The body is not text (protobuf, 312 bytes), so Kubecred cannot show it.');
    expect(bodyNotShown(body({ text: false, preview: '', encoding: 'gzip', mediaType: 'application/json' }))).toBe(
      'The body is compressed (gzip; JSON, 26 bytes), so Kubecred cannot show it.',
    );
  });
});
