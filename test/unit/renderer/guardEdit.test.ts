import { describe, expect, it } from 'vitest';
import {
  EDITOR_VERBS,
  GUARD_PRESETS,
  editorField,
  editorRefusal,
  emptyRow,
  guardRows,
  listOf,
  rowRule,
} from '../../../src/renderer/guardEdit.js';
import { guardSchema } from '../../../src/shared/config/proxySchema.js';

// Issue 33, "editable in the window": a guard's rules become editor rows and back, unchanged.
describe("a guard's rules in the editor", () => {
  it('reads the short form as one read-only rule over everything', () => {
    expect(guardRows('read-only')).toEqual([emptyRow('read-only')]);
    expect(rowRule(guardRows('read-only')[0]!)).toEqual({ action: 'read-only' });
  });

  it('reads every field of a rule, lists as comma-separated text, and writes it back as it was', () => {
    const rules = [
      { name: 'deletes', action: 'confirm', verbs: ['delete', 'deletecollection'] },
      { action: 'deny', resources: ['secrets', 'pods/exec'], namespaces: ['prod'], names: ['db', 'web'] },
      { action: 'read-only', resources: ['deployments.apps'] },
    ];
    const rows = guardRows({ rules });
    expect(rows[1]).toEqual({
      name: '',
      action: 'deny',
      verbs: [],
      resources: 'secrets, pods/exec',
      namespaces: 'prod',
      names: 'db, web',
    });
    expect(rows.map(rowRule)).toEqual(rules);
  });

  it('keeps verbs in the editor order, and reads * as none ticked (every verb)', () => {
    expect(guardRows({ rules: [{ action: 'deny', verbs: ['patch', 'get'] }] })[0]!.verbs).toEqual(['get', 'patch']);
    expect(guardRows({ rules: [{ action: 'deny', verbs: ['*', 'get'] }] })[0]!.verbs).toEqual([]);
    expect(EDITOR_VERBS).not.toContain('*');
    expect(rowRule({ ...emptyRow('deny'), verbs: ['delete', 'get'] })).toEqual({
      action: 'deny',
      verbs: ['get', 'delete'],
    });
  });

  it('sends only what a row gives: a trimmed name, lists split at commas without empty entries', () => {
    expect(listOf(' pods,, pods/exec ,deployments.apps ,')).toEqual(['pods', 'pods/exec', 'deployments.apps']);
    expect(
      rowRule({ name: '  ', action: 'deny', verbs: [], resources: 'secrets', namespaces: ' , ', names: '' }),
    ).toEqual({ action: 'deny', resources: ['secrets'] });
    expect(rowRule({ ...emptyRow('confirm'), name: ' ask first ' })).toEqual({ name: 'ask first', action: 'confirm' });
  });

  it('leaves validation to the broker: a value the schema refuses goes out as typed', () => {
    expect(rowRule({ ...emptyRow('deny'), resources: 'Pods!' })).toEqual({ action: 'deny', resources: ['Pods!'] });
  });

  it('has no rows for a profile without a guard, or a guard in no shape config.yaml takes', () => {
    for (const guard of [undefined, null, 'read-write', { rules: 'x' }, 42]) expect(guardRows(guard)).toEqual([]);
    expect(guardRows({ rules: [null, 'x', { action: 'deny' }] })).toEqual([emptyRow('deny')]);
  });

  it("offers presets config.yaml's schema accepts as they are, and Custom opens the editor", () => {
    for (const { label, rules } of GUARD_PRESETS)
      if (rules) expect(guardSchema.safeParse({ rules }).success, label).toBe(true);
    expect(GUARD_PRESETS.map((p) => p.label)).toEqual(['Read-only', 'Ask before deletes', 'Custom…']);
    expect(GUARD_PRESETS[1]!.rules).toEqual([
      { name: 'deletes', action: 'confirm', verbs: ['delete', 'deletecollection'] },
    ]);
    expect(GUARD_PRESETS[2]!.rules).toBeNull();
  });

  it("puts the broker's refusal under the field it names, else under the editor", () => {
    expect(editorField('guard.rules[1].resources[0]')).toBe('rules[1].resources');
    expect(editorField('guard.rules[0].name')).toBe('rules[0].name');
    expect(editorField('guard.rules[2].verbs[3]')).toBe('rules[2].verbs');
    expect(editorField('guard.rules')).toBe('form');
    expect(editorField('guard.rules[0].resourcesx')).toBe('form');
    expect(editorField('proxy.port')).toBe('form');
    expect(editorField(undefined)).toBe('form');
  });

  it("says under a field the schema's words about it, after the entry of a list they are about", () => {
    const rows = [emptyRow('read-only'), { ...emptyRow('deny'), resources: 'secrets, Pods!' }];
    const whole = 'the words whole. With the hint';
    const words = 'a resource looks like pods, pods/exec, pods/*, deployments.apps or *';
    expect(
      editorRefusal(
        {
          message: `the profile is invalid: guard.rules[1].resources[1]: ${words}`,
          field: 'guard.rules[1].resources[1]',
        },
        rows,
        whole,
      ),
    ).toEqual({ field: 'rules[1].resources', text: `“Pods!”: ${words}` });
    expect(
      editorRefusal({ message: 'a rule name is up to 63 letters', field: 'guard.rules[0].name' }, rows, whole),
    ).toEqual({ field: 'rules[0].name', text: 'a rule name is up to 63 letters' });
    expect(editorRefusal({ message: 'a guard has at least one rule', field: 'guard.rules' }, rows, whole)).toEqual({
      field: 'form',
      text: whole,
    });
    expect(editorRefusal({ message: 'no proxy' }, rows, whole)).toEqual({ field: 'form', text: whole });
  });
});
