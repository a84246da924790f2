#include "etkit/inspect/html_report.h"

#include <cstddef>

namespace etkit::inspect {

namespace {

// The page's style and script. They reference nothing outside the page (see the header).
constexpr std::string_view kStyle = R"CSS(
body{font:13px/1.4 system-ui,sans-serif;margin:0 24px 40px;color:#222;background:#fafafa}
h1{font-size:20px;margin:16px 0 4px}h2{font-size:16px;margin:24px 0 6px;border-bottom:1px solid #ccc}
h3{font-size:14px;margin:12px 0 4px}
table{border-collapse:collapse;margin:4px 0 8px;background:#fff}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}
th{background:#eee;cursor:pointer;user-select:none}td.t{text-align:left}
tr.regression td{background:#fdd}tr.improvement td{background:#dfd}tr.bad td{background:#fdd}
.bar{display:inline-block;height:9px;background:#4a7fc1;vertical-align:middle}
.note{color:#a40;margin:4px 0}.muted{color:#777}
svg{background:#fff;border:1px solid #ddd;display:block}
.tl rect.s{stroke:#fff;stroke-width:.5}
.wrap{max-width:100%;overflow-x:auto}
)CSS";

constexpr std::string_view kScript = R"JS(
(function(){
'use strict';
var body=document.body, errors=0, counts={spans:0,'stats-rows':0,'operator-rows':0,
 'distribution-rows':0,'delegate-rows':0,'values-rows':0,'diff-rows':0,'compare-rows':0,timelines:0};
window.addEventListener('error',function(){errors++;body.setAttribute('data-errors',String(errors));});
// The SVG namespace, with its colon escaped: the page holds no URL (the offline check).
var SVG='http\u003a//www.w3.org/2000/svg';
function el(tag,attrs,text){var e=document.createElement(tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);
 if(text!==undefined&&text!==null)e.textContent=String(text);return e;}
function sv(tag,attrs){var e=document.createElementNS(SVG,tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);return e;}
function ms(ns){if(ns===null||ns===undefined)return '';var a=Math.abs(ns);
 if(a>=1e9)return (ns/1e9).toFixed(3)+' s';if(a>=1e6)return (ns/1e6).toFixed(3)+' ms';
 if(a>=1e3)return (ns/1e3).toFixed(3)+' us';return ns.toFixed(0)+' ns';}
function fmt(v){if(v===null||v===undefined)return '';if(Array.isArray(v))return v.join(',');
 if(typeof v==='number'&&!Number.isInteger(v))return String(Math.round(v*1e6)/1e6);return String(v);}
var main=document.getElementById('report');
function section(title){main.appendChild(el('h2',{},title));}
// A sortable table of library rows; `bar` names the column drawn as a bar; `rowClass` colors rows.
function table(parent,t,count,bar,rowClass){
 if(!t)return;parent.appendChild(el('h3',{},t.title+(t.unit?' (times in '+t.unit+')':'')));
 var rows=t.rows.slice(),cols=rows.length?Object.keys(rows[0]):[];
 var tab=el('table',{'data-table':t.name}),head=el('tr'),tb=el('tbody');
 var max=0;rows.forEach(function(r){if(typeof r[bar]==='number')max=Math.max(max,r[bar]);});
 var dir={};
 function draw(){tb.textContent='';rows.forEach(function(r){var tr=el('tr');
  if(rowClass)tr.className=rowClass(r);
  cols.forEach(function(c){var v=r[c],td=el('td',typeof v==='string'?{class:'t'}:{},fmt(v));tr.appendChild(td);});
  if(bar){var td=el('td',{class:'t'}),w=max>0&&typeof r[bar]==='number'?Math.round(120*r[bar]/max):0;
   td.appendChild(el('span',{class:'bar',style:'width:'+w+'px'}));tr.appendChild(td);}
  tb.appendChild(tr);});}
 cols.forEach(function(c){var th=el('th',{title:'sort by '+c},c);th.addEventListener('click',function(){
  dir[c]=-(dir[c]||1);var d=dir[c];rows.sort(function(a,b){var x=a[c],y=b[c];
   if(x===y)return 0;if(x===null)return 1;if(y===null)return -1;return (x<y?-1:1)*d;});draw();});head.appendChild(th);});
 if(bar)head.appendChild(el('th',{},bar));
 tab.appendChild(el('thead')).appendChild(head);tab.appendChild(tb);draw();
 var w=el('div',{class:'wrap'});w.appendChild(tab);parent.appendChild(w);counts[count]+=rows.length;}
function find(doc,name){if(!doc)return null;for(var i=0;i<doc.tables.length;i++)if(doc.tables[i].name===name)return doc.tables[i];return null;}
var palette=['#4a7fc1','#e0913a','#5aa469','#c85a5a','#8a6bbd','#b08850','#d477b0','#7f7f7f','#b5b83a','#3ab5c2'];
function color(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))>>>0;return palette[h%palette.length];}
// One iteration's spans, a row per nesting depth of each track; drag selects a range to zoom
// into, double-click shows the whole iteration again. `span` is the time the axis covers.
function timeline(parent,tl,span){
 var C={};tl.columns.forEach(function(c,i){C[c]=i;});
 var tracks=[],rows={};tl.spans.forEach(function(s){var t=s[C.track];if(!(t in rows)){rows[t]={min:1e9,max:0};tracks.push(t);}
  rows[t].min=Math.min(rows[t].min,s[C.depth]);rows[t].max=Math.max(rows[t].max,s[C.depth]);});
 tracks.sort(function(a,b){function k(t){return t==='host'?0:t==='delegate'?1:2;}return k(a)-k(b)||(a<b?-1:a>b?1:0);});
 var H=14,W=1000,L=110,y=0,off={};tracks.forEach(function(t){off[t]=y;y+=(rows[t].max-rows[t].min+1)*H+6;});
 var svg=sv('svg',{width:W+L,height:y+20,class:'tl','data-spans':tl.spans.length});
 var g=sv('g');svg.appendChild(g);
 tracks.forEach(function(t){var lab=sv('text',{x:2,y:off[t]+11,'font-size':11});lab.textContent=t;svg.appendChild(lab);});
 var x0=0,x1=span||tl.time_ns||1;
 var axis=sv('text',{x:L,y:y+14,'font-size':11});svg.appendChild(axis);
 function draw(){g.textContent='';var k=W/Math.max(x1-x0,1e-9);
  tl.spans.forEach(function(s){var a=s[C.start_ns],d=s[C.duration_ns];if(a+d<x0||a>x1)return;
   var r=sv('rect',{class:'s',x:L+Math.max(0,(a-x0)*k),y:off[s[C.track]]+(s[C.depth]-rows[s[C.track]].min)*H,
    width:Math.max(0.5,Math.min(W,(a+d-x0)*k)-Math.max(0,(a-x0)*k)),height:H-2,fill:color(s[C.op]||s[C.name])});
   var tip=s[C.name]+(s[C.op]?' ('+s[C.op]+')':'')+'\nstart '+ms(a)+', duration '+ms(d)+', self '+ms(s[C.self_ns])+
    (s[C.instruction]>=0?'\ninstruction '+s[C.instruction]:'')+(s[C.debug_handles]?'\ndebug handles '+s[C.debug_handles].join(',')+
    (s[C.ops]?' ('+s[C.ops]+')':''):'');
   var ti=sv('title');ti.textContent=tip;r.appendChild(ti);g.appendChild(r);});
  axis.textContent=ms(x0)+' .. '+ms(x1)+'  (drag to zoom, double-click to reset)';}
 var down=null,sel=sv('rect',{fill:'rgba(74,127,193,.2)',height:y,y:0,width:0});svg.appendChild(sel);
 function at(ev){var b=svg.getBoundingClientRect();return x0+(ev.clientX-b.left-L)/W*(x1-x0);}
 svg.addEventListener('mousedown',function(ev){down=at(ev);sel.setAttribute('x',ev.clientX-svg.getBoundingClientRect().left);sel.setAttribute('width',0);});
 svg.addEventListener('mousemove',function(ev){if(down===null)return;var b=svg.getBoundingClientRect(),px=(down-x0)/(x1-x0)*W+L,cx=ev.clientX-b.left;
  sel.setAttribute('x',Math.min(px,cx));sel.setAttribute('width',Math.abs(cx-px));});
 svg.addEventListener('mouseup',function(ev){if(down===null)return;var u=at(ev);sel.setAttribute('width',0);
  if(Math.abs(u-down)>(x1-x0)/500){x0=Math.min(u,down);x1=Math.max(u,down);draw();}down=null;});
 svg.addEventListener('dblclick',function(){x0=0;x1=span||tl.time_ns||1;draw();});
 draw();parent.appendChild(el('div',{class:'wrap'})).appendChild(svg);
 counts.spans+=tl.spans.length;counts.timelines++;
 if(tl.spans_shown<tl.spans_total){var n=0;tl.omitted.forEach(function(o){n+=o.count;});
  parent.appendChild(el('p',{class:'note'},'Showing the '+tl.spans_shown+' longest of '+tl.spans_total+
   ' spans; the other '+n+' are summed per name below.'));
  table(parent,{name:'omitted',title:'spans left out of the timeline',unit:'',rows:tl.omitted.map(function(o){
   return {name:o.name,count:o.count,total:ms(o.total_ns)};})},'stats-rows',null);}}
// Box (quartiles, whiskers at the extremes) and strip (every sample) per operator.
function distribution(parent,dist){
 if(!dist.length){parent.appendChild(el('p',{class:'muted'},'No operator events.'));return;}
 var max=0;dist.forEach(function(d){d.time_ns.forEach(function(t){max=Math.max(max,t);});});
 var H=22,W=700,L=240,svg=sv('svg',{width:W+L+20,height:dist.length*H+24,'data-rows':dist.length});
 dist.forEach(function(d,i){var s=d.time_ns.slice().sort(function(a,b){return a-b;}),n=s.length,y=i*H+4;
  function q(p){var x=(n-1)*p,lo=Math.floor(x);return lo+1<n?s[lo]+(s[lo+1]-s[lo])*(x-lo):s[lo];}
  function X(t){return L+(max>0?t/max*W:0);}
  var lab=sv('text',{x:2,y:y+13,'font-size':11});lab.textContent=d.method+': '+d.operator+(d.sampled?' (sampled)':'');svg.appendChild(lab);
  svg.appendChild(sv('line',{x1:X(s[0]),x2:X(s[n-1]),y1:y+8,y2:y+8,stroke:'#888'}));
  var box=sv('rect',{x:X(q(.25)),y:y+2,width:Math.max(1,X(q(.75))-X(q(.25))),height:12,fill:'#cfe0f5',stroke:'#4a7fc1'});
  var ti=sv('title');ti.textContent=d.operator+': '+n+' iterations, min '+ms(s[0])+', p25 '+ms(q(.25))+', p50 '+ms(q(.5))+', p75 '+ms(q(.75))+', max '+ms(s[n-1]);
  box.appendChild(ti);svg.appendChild(box);
  svg.appendChild(sv('line',{x1:X(q(.5)),x2:X(q(.5)),y1:y+2,y2:y+14,stroke:'#123'}));
  s.forEach(function(t){svg.appendChild(sv('circle',{cx:X(t),cy:y+8,r:1.5,fill:'rgba(200,60,60,.5)'}));});});
 var ax=sv('text',{x:L,y:dist.length*H+18,'font-size':11});ax.textContent='0 .. '+ms(max)+' per iteration';svg.appendChild(ax);
 parent.appendChild(el('div',{class:'wrap'})).appendChild(svg);counts['distribution-rows']+=dist.length;}
function histogram(parent,dump){
 var hs=dump.histograms;if(!hs.length)return;parent.appendChild(el('h3',{},'Histogram'));
 var pick=el('select');hs.forEach(function(h,i){pick.appendChild(el('option',{value:i},'block '+h.block+' value '+h.value+
  (h.list_index?' ['+h.list_index+']':'')));});parent.appendChild(pick);
 var W=400,H=120,svg=sv('svg',{width:W+20,height:H+20});parent.appendChild(svg);
 function draw(){svg.textContent='';var h=hs[pick.value],m=Math.max.apply(null,h.bins.concat([1])),w=W/h.bins.length;
  h.bins.forEach(function(b,i){var r=sv('rect',{x:10+i*w,y:H-b/m*H,width:w-1,height:b/m*H,fill:'#4a7fc1'});
   var t=sv('title');t.textContent=b+' elements';r.appendChild(t);svg.appendChild(r);});
  var ax=sv('text',{x:10,y:H+14,'font-size':11});ax.textContent=fmt(h.min)+' .. '+fmt(h.max);svg.appendChild(ax);}
 pick.addEventListener('change',draw);draw();}
function dumpSection(dump,span){
 var info=find(dump.info,'dump');
 section('Summary: '+dump.path);
 if(info){var t=el('table');info.rows.forEach(function(r){var tr=el('tr');tr.appendChild(el('td',{class:'t'},r.field));
  tr.appendChild(el('td',{class:'t'},fmt(r.value)));t.appendChild(tr);});main.appendChild(t);}
 var it=el('table'),h=el('tr');['method','iterations','total','p50','p90'].forEach(function(c){h.appendChild(el('th',{},c));});it.appendChild(h);
 dump.iterations.forEach(function(m){var tr=el('tr');[m.method,m.iterations,ms(m.total_ns),ms(m.p50_ns),ms(m.p90_ns)].forEach(function(v,i){
  tr.appendChild(el('td',i?{}:{class:'t'},v));});it.appendChild(tr);});main.appendChild(it);
 (dump.stats&&dump.stats.warnings||[]).forEach(function(w){main.appendChild(el('p',{class:'note'},w));});
 var tl=dump.timeline||{iteration:'-',spans:[]};
 // A comparison (span > 0) draws both timelines together, above.
 if(!span&&dump.timeline){section('Timeline: '+tl.method+', iteration '+tl.iteration+' ('+ms(tl.time_ns)+')');
  timeline(main,tl,0);}
 else if(!span){section('Timeline');main.appendChild(el('p',{class:'muted'},'No measured complete iteration to draw.'));}
 section('Top operators');
 table(main,find(dump.stats,'operator_summary'),'operator-rows','total');
 table(main,find(dump.stats,'stats'),'stats-rows','total');
 table(main,find(dump.stats,'device_summary'),'stats-rows','total');
 section('Distribution per operator over iterations');
 distribution(main,dump.distribution);
 section('Delegate calls of iteration '+tl.iteration);
 if(dump.delegates.length){table(main,{name:'delegates',title:'delegate events',unit:'',rows:dump.delegates.map(function(d){
  return {instruction:d.instruction,name:d.name,start:ms(d.start_ns),duration:ms(d.duration_ns),self:ms(d.self_ns),
   debug_handles:d.debug_handles,ops:d.ops};})},'delegate-rows',null);}
 else main.appendChild(el('p',{class:'muted'},'No delegate events.'));
 if(dump.values){section('Values');table(main,find(dump.values,'values'),'values-rows',null,function(r){
  return r.nan>0||r.inf>0?'bad':'';});histogram(main,dump);}}
var data=JSON.parse(document.getElementById('etkit-data').textContent);
var cmp=data.comparison;
if(cmp){section('Comparison: '+data.dumps[0].path+' (a) and '+data.dumps[1].path+' (b)');
 if(cmp.diff){main.appendChild(el('p',{},'Latency: '+cmp.diff_verdict));
  table(main,find(cmp.diff,'diff'),'diff-rows','delta',function(r){return r.status==='regression'?'regression':r.status==='improvement'?'improvement':'';});
  table(main,find(cmp.diff,'diff_summary'),'diff-rows',null);}
 if(cmp.compare){main.appendChild(el('p',{},'Values: '+cmp.compare_verdict));
  table(main,find(cmp.compare,'compare'),'compare-rows',null,function(r){return r.status&&r.status!=='ok'?'bad':'';});
  table(main,find(cmp.compare,'compare_summary'),'compare-rows',null);}}
// Both timelines on one time axis, one above the other, so that they line up.
var span=0;if(cmp)data.dumps.forEach(function(d){if(d.timeline)span=Math.max(span,d.timeline.time_ns);});
if(span){section('Timelines on one axis');['a','b'].forEach(function(side,i){var tl=data.dumps[i].timeline;
 if(!tl){main.appendChild(el('p',{class:'muted'},side+': no measured complete iteration to draw.'));return;}
 main.appendChild(el('h3',{},side+': '+data.dumps[i].path+', '+tl.method+', iteration '+tl.iteration+' ('+ms(tl.time_ns)+')'));
 timeline(main,tl,span);});}
data.dumps.forEach(function(d){dumpSection(d,span||0);});
for(var k in counts)body.setAttribute('data-'+k,String(counts[k]));
body.setAttribute('data-errors',String(errors));body.setAttribute('data-rendered','1');
})();
)JS";

void append_escaped_html(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
}

}  // namespace

void write_script_json(std::string_view data,
                       const std::function<void(std::string_view)>& write) {
  // The runs between two '<' are handed on as they are.
  size_t from = 0;
  for (size_t at = data.find('<'); at != std::string_view::npos; at = data.find('<', from)) {
    if (at > from) write(data.substr(from, at - from));
    write("\\u003c");
    from = at + 1;
  }
  if (from < data.size()) write(data.substr(from));
}

std::string escape_script_json(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  write_script_json(data, [&](std::string_view piece) { out += piece; });
  return out;
}

std::string html_report_head(std::string_view title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  append_escaped_html(out, title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body data-rendered=\"0\">\n<h1>";
  append_escaped_html(out, title);
  out += "</h1>\n<noscript>This report draws its sections with JavaScript; the data is in the "
         "etkit-data element.</noscript>\n<div id=\"report\"></div>\n"
         "<script type=\"application/json\" id=\"etkit-data\">\n";
  return out;
}

std::string html_report_tail() {
  std::string out = "\n</script>\n<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string html_report_page(std::string_view title, std::string_view data) {
  std::string out = html_report_head(title);
  write_script_json(data, [&](std::string_view piece) { out += piece; });
  out += html_report_tail();
  return out;
}

}  // namespace etkit::inspect
