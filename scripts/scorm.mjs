// SCORM packages of the lab for learning platforms (Moodle, Canvas, Blackboard, ...): a zip with
// imsmanifest.xml and the single-file build (dist/attention-lab.html: WASM, styles and fonts inside,
// so it needs no network and no MIME type for .wasm from the platform). One SCO: the whole lab, or
// one section with --section (see docs/course-integration.md, "SCORM packages").
//
//   node scripts/scorm.mjs                     dist/attention-lab-scorm12.zip and dist/attention-lab-scorm2004.zip
//   node scripts/scorm.mjs --scorm 2004 --lang en --section 18.3 --solutions 0 --pass 80 --out my.zip
//     --scorm 1.2 | 2004   the SCORM version (default: both, with the default names)
//     --lang zh | en       the language the lab opens in (default: Chinese; the student can switch)
//     --section ID         one section alone (?embed=ID): its exercises make the score
//     --solutions 0        hints, solutions and diagnoses hidden (a graded session)
//     --pass N             the passing score in percent: 1.2 adlcp:masteryscore, 2004 the primary
//                          objective's minNormalizedMeasure (N / 100); without it, passing = every exercise solved
//     --out FILE           where to write the zip (one version only)
//
// The manifests name no XML schema files (xsi:schemaLocation) and the packages carry none: the
// IMS/ADL .xsd files carry a copyright notice and no licence to redistribute them, and platforms
// read the manifest without them (schemaLocation is a hint, not part of a manifest's validity).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zipSync, strToU8 } from 'fflate';
import { SECTIONS } from '../web/src/sections/index.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ENTRY = 'attention-lab.html';
const MTIME = new Date('2024-01-01T00:00:00Z');   // fixed: the same build gives the same zip

const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const NAMESPACES = {
  '1.2': 'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"',
  2004: 'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"',
};
const SCHEMA_VERSION = { '1.2': '1.2', 2004: '2004 4th Edition' };

/** The launch parameters (the item's `parameters`, appended to the entry point by the platform). */
export function launchParams({ lang, section, solutions = true }) {
  const p = new URLSearchParams();
  if (section) p.set('embed', section);
  if (lang) p.set('lang', lang);
  if (!solutions) p.set('solutions', '0');
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** imsmanifest.xml for one SCO launching `href` (the entry point) with `params`. */
export function manifest({ version, params = '', section = null, pass = null, files = [ENTRY] }) {
  const id = `attention-lab-scorm${version.replace('.', '')}${section ? `-${section.replace('.', '-')}` : ''}`;
  const title = `Attention Lab · 注意力实验室${section ? ` ${section}` : ''}`;
  const mastery = pass === null ? '' : version === '1.2'
    ? `\n        <adlcp:masteryscore>${pass}</adlcp:masteryscore>`
    : `\n        <imsss:sequencing>\n          <imsss:objectives>\n            <imsss:primaryObjective objectiveID="${id}-pass" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>${pass / 100}</imsss:minNormalizedMeasure>\n            </imsss:primaryObjective>\n          </imsss:objectives>\n        </imsss:sequencing>`;
  const scormType = version === '1.2' ? 'adlcp:scormtype' : 'adlcp:scormType';
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${id}" version="1.0"
    ${NAMESPACES[version]}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>${SCHEMA_VERSION[version]}</schemaversion>
  </metadata>
  <organizations default="${id}-org">
    <organization identifier="${id}-org">
      <title>${xml(title)}</title>
      <item identifier="${id}-item" identifierref="${id}-sco"${params ? ` parameters="${xml(params)}"` : ''}>
        <title>${xml(title)}</title>${mastery}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="${id}-sco" type="webcontent" ${scormType}="sco" href="${ENTRY}">
${files.map((f) => `      <file href="${xml(f)}"/>`).join('\n')}
    </resource>
  </resources>
</manifest>
`;
}

/** The package: a zip of imsmanifest.xml and the single-file lab. */
export function buildPackage({ version, html, lang = null, section = null, solutions = true, pass = null }) {
  if (!['1.2', '2004'].includes(version)) throw new Error(`scorm: --scorm must be 1.2 or 2004, got ${version}`);
  if (lang !== null && !['zh', 'en'].includes(lang)) throw new Error(`scorm: --lang must be zh or en, got ${lang}`);
  if (section !== null && !SECTIONS.some((s) => s.id === section)) {
    throw new Error(`scorm: --section must be one of ${SECTIONS.map((s) => s.id).join(', ')}, got ${section}`);
  }
  if (pass !== null && !(Number.isInteger(pass) && pass >= 0 && pass <= 100)) throw new Error(`scorm: --pass must be a whole percentage 0..100, got ${pass}`);
  const text = manifest({ version, params: launchParams({ lang, section, solutions }), section, pass });
  return zipSync({
    'imsmanifest.xml': [strToU8(text), { mtime: MTIME }],
    [ENTRY]: [typeof html === 'string' ? strToU8(html) : html, { mtime: MTIME }],
  }, { level: 9 });
}

function cli(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (!/^--(scorm|lang|section|solutions|pass|out)$/.test(name) || value === undefined) {
      throw new Error(`scorm: unknown or incomplete option ${name} (see the top of scripts/scorm.mjs)`);
    }
    opts[name.slice(2)] = value;
  }
  if (opts.solutions !== undefined && !['0', '1'].includes(opts.solutions)) throw new Error(`scorm: --solutions must be 0 or 1, got ${opts.solutions}`);
  const versions = opts.scorm ? [opts.scorm] : ['1.2', '2004'];
  if (opts.out && versions.length > 1) throw new Error('scorm: --out writes one package: give --scorm 1.2 or --scorm 2004 too');
  const html = readFileSync(`${ROOT}dist/${ENTRY}`);
  for (const version of versions) {
    const zip = buildPackage({ version, html, lang: opts.lang ?? null, section: opts.section ?? null,
      solutions: opts.solutions !== '0', pass: opts.pass === undefined ? null : Number(opts.pass) });
    const out = opts.out ?? `${ROOT}dist/attention-lab-scorm${version.replace('.', '')}.zip`;
    writeFileSync(out, zip);
    console.log(`scorm: ${out} (SCORM ${version}, ${(zip.length / 1e6).toFixed(1)} MB)`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try { cli(process.argv.slice(2)); } catch (e) { console.error(e.message); process.exit(1); }
}
