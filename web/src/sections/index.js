// The page's sections, in page order: the one list that the page (through the build's
// virtual:lab-sections, see web/lessons-plugin.js) and the tests read. Plain data, so Node can
// import it too.
//
//   id       the section's number, its lesson file name (lessons/{zh,en}/<id>.md) and its
//            ?embed= value; exercises attach to it by `section: id` (web/src/exercises.js)
//   prefix   the prefix of its state in the URL (s3.x=...); unique
//   module   its controller in this folder (see web/src/section.js); none: lesson and exercises only
//
// Adding a section: its controller module here, lessons/zh/<id>.md, lessons/en/<id>.md, and
// one line below.
export const SECTIONS = [
  { id: '18.1', prefix: 's1', module: 's18-1.js' },
  { id: '18.2', prefix: 's2', module: 's18-2.js' },
  { id: '18.3', prefix: 's3', module: 's18-3.js' },
  { id: '18.4', prefix: 's4', module: 's18-4.js' },
  { id: '18.5', prefix: 's5', module: 's18-5.js' },
  { id: '18.6', prefix: 's6', module: 's18-6.js' },
  { id: '18.7', prefix: 's7', module: 's18-7.js' },
  { id: '18.8', prefix: 's8', module: 's18-8.js' },
  { id: 'exercises', prefix: 'ex' },
];

/** The lesson file of a section, relative to the repository root. */
export const lessonPath = (lang, id) => `lessons/${lang}/${id}.md`;
