import { AuditLogView } from '../components/AuditLogView.js';
import type { SectionProps } from './sectionProps.js';

export function ActivitySection({ audit }: SectionProps) {
  return <AuditLogView records={audit} />;
}
