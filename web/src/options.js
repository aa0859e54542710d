// Options of a whole lab view (not of one section's state): read in this one place, from the page's
// URL (URLSearchParams) or from anything else with get(name) -> string | null (a custom element's
// attributes: {get: (n) => el.getAttribute(n)}). A value that does not parse is ignored and named
// in `rejected`, like the URL state (state.js).
//
//   solutions=0              hide hints, solutions, diagnoses of wrong answers and the answer key
//                            (a graded session); 1 or absent: shown
//   print=worksheet          the worksheet view for paper instead of the lab
//   sections=18.2,18.3       the worksheet's sections (ids from sections/index.js); absent: all
//   key=1                    the worksheet ends with an answer key (unless solutions=0)
//   paper=a4 | letter        the worksheet's @page size for the browser's print dialog; absent: the printer's

const PAPERS = ['a4', 'letter'];

/** -> {options: {solutions, print, sections, key, paper}, rejected: [names]}; sectionIds: the known ids. */
export function readOptions(source, sectionIds) {
  const rejected = [];
  const get = (name) => {
    const v = source.get(name);
    return v === null || v === undefined ? null : String(v);
  };
  const flag = (name, fallback) => {
    const v = get(name);
    if (v === null) return fallback;
    if (v === '0' || v === '1') return v === '1';
    rejected.push(name);
    return fallback;
  };
  const options = { solutions: flag('solutions', true), print: null, sections: null, key: flag('key', false), paper: null };
  const print = get('print');
  if (print === 'worksheet') options.print = print;
  else if (print !== null) rejected.push('print');
  const sections = get('sections');
  if (sections !== null) {
    const ids = sections.split(',').map((s) => s.trim()).filter(Boolean);
    if (ids.length && ids.every((id) => sectionIds.includes(id))) options.sections = sectionIds.filter((id) => ids.includes(id));
    else rejected.push('sections');
  }
  const paper = get('paper');
  if (paper !== null) {
    if (PAPERS.includes(paper.toLowerCase())) options.paper = paper.toLowerCase();
    else rejected.push('paper');
  }
  return { options, rejected };
}
