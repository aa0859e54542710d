// The page's first module to run (main.js imports it first): the code of the sections the URL
// shows (?embed=18.3: that one; otherwise all) starts downloading before the rest of the page's
// modules are evaluated, which with the CPU slowed 4x takes a while (docs/performance.md).
import SECTIONS from 'virtual:lab-sections';
import { prefetchControllers } from './chunks.js';

const embed = new URLSearchParams(location.search).get('embed');
prefetchControllers(SECTIONS.some((s) => s.id === embed) ? [embed] : SECTIONS.map((s) => s.id));
