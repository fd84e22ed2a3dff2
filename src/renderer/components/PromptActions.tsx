/** The two buttons every prompt ends with: its own action, and Cancel. */
export function PromptActions({ label, disabled, onCancel }: { label: string; disabled: boolean; onCancel: () => void }) {
  return (
    <div className="actions">
      <button type="submit" disabled={disabled}>
        {label}
      </button>
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
