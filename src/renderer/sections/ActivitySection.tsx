import { AuditLogView } from '../components/AuditLogView.js';
import type { SectionProps } from './sectionProps.js';

export function ActivitySection({ audit, reload }: SectionProps) {
  return <AuditLogView records={audit} onRefresh={reload} />;
}
