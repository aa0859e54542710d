// The web component from TypeScript: the tag is known to the DOM's types, its attributes take the
// section ids of the lab, and its events carry typed details.
import { AttentionLabElement, type SectionId } from 'attention-lab/element';

const el = document.createElement('attention-lab');
const same: AttentionLabElement = el;
const id: SectionId = '18.3';
el.setAttribute('section', id);
el.addEventListener('attention-lab:state', (e) => {
  const section: SectionId = e.detail.section;
  const state: string = e.detail.state;
  console.log(section, state, e.detail.values);
});
el.addEventListener('attention-lab:ready', (e) => {
  const sections: SectionId[] = e.detail.sections;
  const error: string | null = e.detail.error;
  console.log(sections, error, same);
});
// @ts-expect-error: not a section of the lab
const wrong: SectionId = '18.99';
console.log(wrong);
